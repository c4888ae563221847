// The data model. Every exported interface that extends Model is a table and a
// set of routes (/api/projects, /api/tasks); `@mfx` tags in the JSDoc say how
// each field is validated and queried. `npm run build` (or the running
// `npm run dev`) compiles this file into the manifest in .mfx/.
import type { Int, Model } from '@mfx/runtime';

/**
 * A project groups tasks.
 * @mfx base:created_at=filterable|sortable
 */
export interface Project extends Model {
  /** @mfx required, minlen:1, maxlen:120, filterable, sortable, searchable */
  name: string;
  /** URL-friendly name, set from `name` by a hook in app.ts; unique. @mfx readonly, unique, filterable */
  slug: string;
  description: string | null;
  /** @mfx default:false, filterable */
  archived: boolean;
  /** The project's tasks: `?include=tasks`. */
  tasks?: Task[];
}

/**
 * A piece of work in a project.
 * @mfx base:created_at=filterable|sortable
 */
export interface Task extends Model {
  /** @mfx required, minlen:1, maxlen:200, filterable, sortable, searchable */
  title: string;
  /** @mfx enum:todo|doing|done, default:todo, filterable, sortable */
  status: string;
  /** 1 is the most urgent. @mfx min:1, max:5, default:3, filterable, sortable */
  priority: Int;
  /** @mfx filterable, sortable */
  dueAt: Date | null;
  /** The project it belongs to; deleting the project deletes its tasks. @mfx relation:project;onDelete:cascade, filterable */
  projectId: string;
  /** `?include=project`. */
  project?: Project;
}
