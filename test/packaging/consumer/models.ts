// A consumer's models: the marker types come from @mfx/runtime's published declarations.
import type { Int, Model, SoftDelete } from '@mfx/runtime';

/** A team of members. */
export interface Team extends Model {
  /** @mfx required, unique, filterable, sortable */
  name: string;
  members?: Member[];
}

/** Someone on a team, in one tenant. */
export interface Member extends Model, SoftDelete {
  /** @mfx required, filterable, sortable */
  email: string;
  /** @mfx min:0 */
  age: Int | null;
  /** @mfx relation:team;onDelete:cascade, filterable */
  teamId: string;
  team?: Team;
  /** @mfx filterable */
  tenantId: string;
}
