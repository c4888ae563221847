// The problems production validation reports, one line each (none when it passes).
import type { App } from '@mfx/runtime';

export function productionProblems(app: App): string[] {
  try {
    app.validateProduction();
    return [];
  } catch (error) {
    return (error as Error).message.split('\n').slice(1).map((l) => l.replace(/^\s+- /, ''));
  }
}
