/**
 * Did-you-mean suggestions for misspelt names.
 */

/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The closest candidate, if it is close enough to be a plausible typo
 * (at most a third of the word's length, and at least one edit, away).
 *
 * @example closest('filterabel', ['filterable', 'sortable']) // 'filterable'
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const budget = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = levenshtein(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= budget ? best : undefined;
}

/** ` Did you mean 'x'?`-style hint, or undefined when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const match = closest(word, candidates);
  return match === undefined ? undefined : `Did you mean '${match}'?`;
}
