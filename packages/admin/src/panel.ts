import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, type App, Context, type Hook, type Identity } from '@mfx/runtime';
import { type ApiAnswer, type ApiCall, InProcessApi } from './api.js';
import { CSRF_FIELD, csrfCookie, csrfMatches, csrfTokenOf, newCsrfToken } from './csrf.js';
import { type FormFile, FormError, readForm, type SubmittedForm, writeBody } from './form-body.js';
import { accepts, type Choice, type FormInput, type FormMode, formBody, inForm, inputText } from './forms.js';
import type { ResolvedAdminOptions } from './options.js';
import { type Asset, loadAssets, Pages } from './render.js';
import { type AdminField, type AdminModel, adminModels } from './schema.js';

/** Rows per list page (spec: 20). */
export const PAGE_SIZE = 20;
/** A BelongsTo target with more rows than this gets a search beside its select; a select never lists more. */
export const RELATION_SELECT_MAX = 100;
/** The segment of a model's relation choices (JSON for the search script): `GET /admin/<table>/_choices?q=`. */
export const CHOICES_SEGMENT = '_choices';
/** The largest form body (without its files) the panel reads. */
const FORM_LIMIT = 1024 * 1024;
/** The largest file a form may carry without a `files` setting (its uploads are refused by the API then anyway). */
const DEFAULT_FILE_LIMIT = 32 * 1024 * 1024;

/** Refusals that send the form back with its values and the API's messages: validation, conflicts, and a file's size or type. */
const REFORM = new Set([409, 413, 415, 422]);

/** Every panel response carries these: nothing inline runs, nothing frames the panel. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** What one panel request knows once its gate let it in. */
interface Visit {
  req: IncomingMessage;
  res: ServerResponse;
  identity: Identity | null;
  csrf: string;
  /** Set-Cookie to send when the token was issued on this request. */
  newCookie: string | null;
  search: URLSearchParams;
}

/** A page's answer: a status and a template with its data, or a redirect. */
type Answer = { status: number; template: 'dashboard' | 'list' | 'detail' | 'form' | 'error'; data: Record<string, unknown> } | { redirect: string } | { status: number; json: unknown };

/** A relation's choices: at most RELATION_SELECT_MAX rows, how many matched, and the words that say so. */
interface Choices {
  choices: Choice[];
  total: number;
  message: string;
  /** The API's status when it refused the read (200 otherwise). */
  status: number;
}

/**
 * The admin panel: a router-level middleware that serves the pages under
 * its path and leaves every other request to the API. Pages are built from
 * in-process API calls made as the caller the gate identified.
 */
export class AdminPanel {
  private readonly api: InProcessApi;
  private readonly pages: Pages;
  private readonly assets: Map<string, Asset>;
  private models: Map<string, AdminModel> | null = null;

  constructor(
    private readonly app: App,
    private readonly options: ResolvedAdminOptions,
  ) {
    this.api = new InProcessApi(app);
    this.pages = new Pages(options.templates);
    this.assets = loadAssets();
  }

  /** The models, described on the first request (the registry is complete by then). */
  private get shown(): Map<string, AdminModel> {
    return (this.models ??= adminModels(this.app.registry, this.options.models));
  }

  /** The middleware: panel paths are answered here, the rest goes on to the API. */
  readonly middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const base = this.options.path;
    if (path !== base && !path.startsWith(`${base}/`)) return next();
    this.serve(req, res, path.slice(base.length), new URLSearchParams(q === -1 ? '' : url.slice(q + 1))).catch((error: unknown) => {
      this.app.log.error({ err: error instanceof Error ? (error.stack ?? error.message) : String(error) }, 'admin page failed');
      if (!res.headersSent) this.send(res, 500, this.pages.render('error', this.errorData(500, 'Something went wrong', 'The page could not be built; the error is in the server log.')), {});
      else res.destroy();
    });
  };

  private async serve(req: IncomingMessage, res: ServerResponse, rest: string, search: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    if (rest.startsWith('/static/')) return this.serveAsset(req, res, rest.slice('/static/'.length));
    const visit = await this.admit(req, res, search);
    if (!visit) return;
    const segments = rest
      .split('/')
      .filter((s) => s !== '')
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });
    const answer = await this.route(visit, method, segments);
    this.answer(visit, answer);
  }

  /** Runs the gate; answers its refusal as a page and returns null, or the visit with its CSRF token. */
  private async admit(req: IncomingMessage, res: ServerResponse, search: URLSearchParams): Promise<Visit | null> {
    let identity: Identity | null = null;
    if (this.options.auth.length > 0) {
      const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID();
      const ctx = new Context({ model: null, op: 'action', log: this.app.log }, req, res, {}, requestId, requestId, this.app.db, search.toString());
      try {
        await runHooks(this.options.auth, ctx);
        identity = ctx.identity;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const title = error.status === 401 ? 'Sign in required' : error.status === 403 ? 'Not allowed' : 'Refused';
        this.send(res, error.status, this.pages.render('error', this.errorData(error.status, title, error.message)), error.headers ?? {});
        return null;
      }
    }
    const existing = csrfTokenOf(req);
    const csrf = existing ?? newCsrfToken();
    return { req, res, identity, csrf, newCookie: existing ? null : csrfCookie(csrf, this.options.path, this.options.secure), search };
  }

  private async route(visit: Visit, method: string, segments: string[]): Promise<Answer> {
    const [table, id, action, ...extra] = segments;
    const writable = !this.options.readOnly;
    if (method !== 'GET' && method !== 'POST') return this.errorAnswer(405, 'Method not allowed', `The panel answers GET and POST, not ${method}.`);
    if (table === undefined) return method === 'GET' ? this.dashboard(visit) : this.notFound();
    const model = this.shown.get(table);
    if (!model || extra.length > 0) return this.notFound();
    if (id === undefined) {
      if (method === 'GET') return this.list(visit, model);
      return writable ? this.guarded(visit, (form) => this.create(visit, model, form)) : this.notFound();
    }
    if (id === 'new' && action === undefined && method === 'GET') return writable ? this.form(visit, model, 'create', null, new Map(), null) : this.notFound();
    if (id === CHOICES_SEGMENT && action === undefined && method === 'GET') return this.choicesJson(visit, model);
    if (action === undefined) {
      if (method === 'GET') return this.detail(visit, model, id);
      return writable ? this.guarded(visit, (form) => this.update(visit, model, id, form)) : this.notFound();
    }
    if (action === 'edit' && method === 'GET' && writable) return this.editForm(visit, model, id);
    if (action === 'delete' && method === 'POST' && writable) return this.guarded(visit, () => this.remove(visit, model, id));
    return this.notFound();
  }

  /** A mutating POST: its form read, then the double-submit check before anything else. */
  private async guarded(visit: Visit, work: (form: SubmittedForm) => Promise<Answer>): Promise<Answer> {
    let form: SubmittedForm;
    try {
      form = await readForm(visit.req, FORM_LIMIT, this.app.config.files?.maxUploadBytes ?? DEFAULT_FILE_LIMIT);
    } catch (error) {
      if (error instanceof FormError) return this.errorAnswer(error.status, 'Form not accepted', error.message);
      throw error;
    }
    if (!csrfMatches(visit.req, form.fields.get(CSRF_FIELD))) {
      return this.errorAnswer(403, 'Form expired', 'The form could not be verified (its security token is missing or does not match). Reload the page and submit it again.');
    }
    return work(form);
  }

  // ---- pages -----------------------------------------------------------

  private async dashboard(visit: Visit): Promise<Answer> {
    const cards = await Promise.all(
      [...this.shown.values()].map(async (model) => {
        const answer = await this.call(visit, 'GET', `/${model.table}?limit=1`);
        const ok = answer.status === 200 && typeof answer.body?.meta?.total === 'number';
        return { label: model.label, singular: model.singular.toLowerCase(), href: this.href(model.table), count: ok ? answer.body!.meta!.total! : null, newHref: this.options.readOnly ? null : this.href(model.table, 'new') };
      }),
    );
    return { status: 200, template: 'dashboard', data: { heading: 'Dashboard', cards } };
  }

  private async list(visit: Visit, model: AdminModel): Promise<Answer> {
    const params = visit.search;
    const pageText = params.get('page') ?? '1';
    const page = /^[1-9][0-9]{0,8}$/.test(pageText) ? Number(pageText) : 0;
    const sortText = params.get('sort') ?? '';
    const sortName = sortText.replace(/^-/, '');
    const descending = sortText.startsWith('-');
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page || pageText) });
    if (sortName !== '') query.set('sort', `${sortName}:${descending ? 'desc' : 'asc'}`);
    const active: Record<string, string> = {};
    for (const field of model.filters) {
      const value = params.get(`f_${field.name}`);
      if (value === null || value === '') continue;
      active[field.name] = value;
      const op = field.field.type === 'string' && !field.field.enum && !field.target ? 'contains' : 'eq';
      query.append('filter', `${field.name}:${op}:${value}`);
    }
    const answer = await this.call(visit, 'GET', `/${model.table}?${query}`);
    const keep = (overrides: Record<string, string | null>): string => {
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries(active)) next.set(`f_${name}`, value);
      if (sortText) next.set('sort', sortText);
      if (page > 1) next.set('page', String(page));
      for (const [key, value] of Object.entries(overrides)) {
        if (value === null) next.delete(key);
        else next.set(key, value);
      }
      const text = next.toString();
      return this.href(model.table) + (text ? `?${text}` : '');
    };
    const columns = model.listColumns.map((column) => {
      const current = sortName === column.name ? (descending ? 'descending' : 'ascending') : null;
      return {
        label: column.label,
        name: column.name,
        sortHref: column.roles.sortable ? keep({ sort: current === 'ascending' ? `-${column.name}` : column.name, page: null }) : null,
        sorted: current,
      };
    });
    const filters = model.filters.map((field) => this.filterInput(field, active[field.name] ?? ''));
    const base = { heading: model.label, model: this.modelData(model), columns, filters, filtered: Object.keys(active).length > 0, activeCount: Object.keys(active).length, clearHref: this.href(model.table) };
    if (answer.status !== 200 || !Array.isArray(answer.body?.data)) {
      return { status: answer.status === 200 ? 502 : answer.status, template: 'list', data: { ...base, rows: [], error: apiMessage(answer), pagination: null } };
    }
    const records = answer.body!.data as Array<Record<string, unknown>>;
    const meta = answer.body!.meta ?? {};
    const pages = Math.max(1, meta.pages ?? 1);
    // The row's title cell links to its detail (the first column when no field names a row).
    const rows = records.map((record) => {
      const href = this.href(model.table, String(record.id));
      const cells = model.listColumns.map((column) => this.cell(column, record[column.name], true));
      const at = Math.max(0, model.listColumns.findIndex((c) => c.name === model.titleField));
      cells[at] = { text: cells[at]?.text === '—' ? String(record.id) : cells[at]!.text, href, kind: 'title' };
      return { cells };
    });
    const pagination = {
      page: page || 1,
      pages,
      total: meta.total ?? records.length,
      prevHref: page > 1 ? keep({ page: page === 2 ? null : String(page - 1) }) : null,
      nextHref: (page || 1) < pages ? keep({ page: String((page || 1) + 1) }) : null,
    };
    return { status: 200, template: 'list', data: { ...base, rows, error: null, pagination } };
  }

  private async detail(visit: Visit, model: AdminModel, id: string): Promise<Answer> {
    const answer = await this.call(visit, 'GET', `/${model.table}/${encodeURIComponent(id)}`);
    if (answer.status !== 200) return this.apiFailure(answer, model);
    const record = answer.body!.data as Record<string, unknown>;
    const fields = model.columns.map((column) => ({ label: column.label, ...this.cell(column, record[column.name], false) }));
    const children = model.children.map((child) => ({
      label: child.label,
      href: child.filterable ? `${this.href(child.target.table)}?${new URLSearchParams({ [`f_${child.field}`]: String(record.id) })}` : this.href(child.target.table),
    }));
    return {
      status: 200,
      template: 'detail',
      data: {
        heading: `${model.singular}: ${String(record[model.titleField] ?? record.id)}`,
        model: this.modelData(model),
        fields,
        children,
        editHref: this.options.readOnly ? null : this.href(model.table, id, 'edit'),
        deleteAction: this.options.readOnly ? null : this.href(model.table, id, 'delete'),
        csrf: visit.csrf,
      },
    };
  }

  private async editForm(visit: Visit, model: AdminModel, id: string): Promise<Answer> {
    // Localized fields as their stored maps, whatever their mode: one input per locale, each prefilled.
    const answer = await this.call(visit, 'GET', `/${model.table}/${encodeURIComponent(id)}`, undefined, undefined, { localeMaps: true });
    if (answer.status !== 200) return this.apiFailure(answer, model);
    const record = answer.body!.data as Record<string, unknown>;
    const texts = new Map<string, string>();
    for (const field of model.inputs) {
      if (field.widget === 'localized') {
        const value = localizedValue(record, field, this.app.registry.locales.splitSuffix);
        for (const locale of this.locales()) texts.set(`${field.name}.${locale}`, value[locale] ?? '');
      } else if (field.widget === 'checkbox') {
        if (record[field.name] === true) texts.set(field.name, 'on');
      } else if (field.widget !== 'secret') texts.set(field.name, inputText(field, record[field.name]));
    }
    if (answer.etag) texts.set('_etag', answer.etag);
    return this.form(visit, model, 'edit', { id, record }, texts, null);
  }

  private async create(visit: Visit, model: AdminModel, submitted: SubmittedForm): Promise<Answer> {
    const form = submitted.fields;
    const answer = await this.write(visit, 'POST', `/${model.table}`, formBody(model, form, 'create', this.locales()), this.filesOf(model, submitted, 'create'));
    if (answer.status === 201) {
      const created = answer.body?.data as Record<string, unknown> | undefined;
      return { redirect: created?.id !== undefined ? this.href(model.table, String(created.id)) : this.href(model.table) };
    }
    if (REFORM.has(answer.status)) return this.form(visit, model, 'create', null, form, answer);
    return this.apiFailure(answer, model);
  }

  private async update(visit: Visit, model: AdminModel, id: string, submitted: SubmittedForm): Promise<Answer> {
    const form = submitted.fields;
    const etag = form.get('_etag');
    const answer = await this.write(visit, 'PATCH', `/${model.table}/${encodeURIComponent(id)}`, formBody(model, form, 'edit', this.locales()), this.filesOf(model, submitted, 'edit'), etag || undefined);
    if (answer.status === 200) return { redirect: this.href(model.table, id) };
    if (REFORM.has(answer.status) || answer.status === 412) {
      const record = await this.call(visit, 'GET', `/${model.table}/${encodeURIComponent(id)}`);
      if (record.status !== 200) return this.apiFailure(record, model);
      return this.form(visit, model, 'edit', { id, record: record.body!.data as Record<string, unknown> }, form, answer);
    }
    return this.apiFailure(answer, model);
  }

  /** The form's files for fields the write accepts. */
  private filesOf(model: AdminModel, form: SubmittedForm, mode: FormMode): Map<string, FormFile> {
    const files = new Map<string, FormFile>();
    for (const field of model.inputs) {
      const file = form.files.get(field.name);
      if (field.widget === 'file' && file && accepts(field, mode)) files.set(field.name, file);
    }
    return files;
  }

  /** A create or update: JSON, or multipart with the files as parts named after their fields (the API checks them). */
  private write(visit: Visit, method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>, files: Map<string, FormFile>, ifMatch?: string): Promise<ApiAnswer> {
    return this.call(visit, method, path, body, ifMatch, files.size === 0 ? {} : { raw: writeBody(body, files) });
  }

  private async remove(visit: Visit, model: AdminModel, id: string): Promise<Answer> {
    const answer = await this.call(visit, 'DELETE', `/${model.table}/${encodeURIComponent(id)}`);
    if (answer.status === 204 || answer.status === 200) return { redirect: this.href(model.table) };
    return this.apiFailure(answer, model);
  }

  /** The create or edit form, filled from `texts` (the record's values, or what was submitted), with the API's refusal when there was one. */
  private async form(visit: Visit, model: AdminModel, mode: FormMode, editing: { id: string; record: Record<string, unknown> } | null, texts: Map<string, string>, refusal: ApiAnswer | null): Promise<Answer> {
    const details = refusal?.body?.error?.details ?? [];
    const fieldErrors = new Map<string, string>();
    const general: string[] = [];
    for (const detail of details) {
      if (typeof detail?.field === 'string' && typeof detail.message === 'string') {
        if (fieldErrors.has(detail.field)) fieldErrors.set(detail.field, `${fieldErrors.get(detail.field)}; ${detail.message}`);
        else fieldErrors.set(detail.field, detail.message);
      }
    }
    // A file's refusal (413, 415) names its field in the message: shown beside that input.
    const fileField = details.length === 0 ? /^the file "([^"]+)"/.exec(refusal?.body?.error?.message ?? '')?.[1] : undefined;
    if (fileField && model.inputs.some((f) => f.name === fileField && f.widget === 'file')) fieldErrors.set(fileField, apiMessage(refusal!));
    else if (refusal && details.length === 0) general.push(apiMessage(refusal));
    const known = new Set(model.inputs.flatMap((f) => [f.name, ...this.locales().map((l) => `${f.name}.${l}`)]));
    for (const [field, message] of fieldErrors) if (!known.has(field)) general.push(`${field}: ${message}`);
    const inputs: FormInput[] = [];
    const pageHref = editing ? this.href(model.table, editing.id, 'edit') : this.href(model.table, 'new');
    for (const field of model.inputs) {
      if (!inForm(field, mode)) continue;
      inputs.push(await this.formInput(visit, field, mode, texts, fieldErrors, editing?.record ?? null, pageHref));
    }
    const title = editing ? String(editing.record[model.titleField] ?? editing.id) : null;
    return {
      status: refusal ? refusal.status : 200,
      template: 'form',
      data: {
        heading: editing ? `Edit ${model.singular.toLowerCase()}: ${title}` : `New ${model.singular.toLowerCase()}`,
        model: this.modelData(model),
        mode,
        action: editing ? this.href(model.table, editing.id) : this.href(model.table),
        cancelHref: editing ? this.href(model.table, editing.id) : this.href(model.table),
        inputs,
        general,
        csrf: visit.csrf,
        etag: texts.get('_etag') ?? '',
        multipart: model.inputs.some((f) => f.widget === 'file' && inForm(f, mode)),
        script: this.scriptHref(),
      },
    };
  }

  private async formInput(visit: Visit, field: AdminField, mode: FormMode, texts: Map<string, string>, errors: Map<string, string>, record: Record<string, unknown> | null, pageHref: string): Promise<FormInput> {
    const f = field.field;
    const input: FormInput = {
      name: field.name,
      label: field.label,
      widget: field.widget,
      value: texts.get(field.name) ?? (mode === 'create' && f.default !== undefined && f.default !== null && typeof f.default !== 'object' ? String(f.default) : ''),
      checked: mode === 'create' && !texts.size ? f.default === true : texts.has(field.name),
      disabled: !accepts(field, mode),
      required: field.roles.requiredOnCreate && accepts(field, mode) && field.widget !== 'checkbox',
      error: errors.get(field.name) ?? null,
      hint: hintOf(field, mode),
      choices: [],
      lookup: null,
      locales: [],
      min: f.min ?? null,
      max: f.max ?? null,
      step: f.type === 'number' ? 'any' : f.type === 'integer' || f.type === 'bigint' ? '1' : null,
      maxlength: f.maxlen ?? null,
      accept: f.file?.accept?.join(',') ?? null,
      file: field.widget === 'file' && record && typeof record[field.name] === 'string' ? { key: String(record[field.name]), href: this.fileHref(String(record[field.name])) } : null,
    };
    // A secret is never sent back to the browser, not even what was just typed.
    if (field.widget === 'secret') input.value = '';
    if (field.widget === 'select') {
      input.choices = (f.enum ?? []).map((value) => ({ value, label: value }));
      if (input.value !== '' && !f.enum?.includes(input.value)) input.choices.unshift({ value: input.value, label: input.value });
    }
    const target = field.widget === 'relation' && field.target ? this.shown.get(field.target.table) : undefined;
    if (target) {
      // A small target is a plain select; a large one (or one already searched) also gets a search that narrows it.
      const query = (visit.search.get(`q_${field.name}`) ?? '').trim();
      const found = await this.relationChoices(visit, target, query);
      input.choices = found.choices;
      if (query !== '' || found.total > RELATION_SELECT_MAX) {
        input.lookup = { query, choicesHref: this.href(target.table, CHOICES_SEGMENT), pageHref, status: found.message, label: `Search ${target.label.toLowerCase()}` };
      }
      if (input.value !== '' && !input.choices.some((c) => c.value === input.value)) input.choices.unshift(await this.currentChoice(visit, target, input.value));
    }
    if (field.widget === 'localized') {
      input.locales = this.locales().map((locale) => ({ locale, value: texts.get(`${field.name}.${locale}`) ?? '', error: errors.get(`${field.name}.${locale}`) ?? null }));
    }
    return input;
  }

  /**
   * The rows of a relation's target a select offers: the first
   * RELATION_SELECT_MAX by its title, or, with `query`, those whose title
   * contains it (the title field's filter; else the target's own search `q`
   * over its searchable fields; else the row of that id). Read through the
   * API as the caller, like every page.
   */
  private async relationChoices(visit: Visit, target: AdminModel, query: string): Promise<Choices> {
    const title = target.columns.find((c) => c.name === target.titleField && c.name !== 'id');
    const params = new URLSearchParams({ limit: String(RELATION_SELECT_MAX) });
    if (title?.roles.sortable) params.set('sort', `${title.name}:asc`);
    let answer: ApiAnswer;
    if (query === '') answer = await this.call(visit, 'GET', `/${target.table}?${params}`);
    else if (title?.roles.filterable) {
      params.append('filter', `${title.name}:contains:${query}`);
      answer = await this.call(visit, 'GET', `/${target.table}?${params}`);
    } else if (target.meta.fieldsWith('searchable').length > 0) {
      params.set('q', query);
      answer = await this.call(visit, 'GET', `/${target.table}?${params}`);
    } else {
      // Nothing to search but the id: the row of that id, or none (a text that is no id is no match).
      const one = await this.call(visit, 'GET', `/${target.table}/${encodeURIComponent(query)}`);
      const rows = one.status === 200 && one.body?.data ? [one.body.data] : [];
      answer = { status: 200, body: { data: rows, meta: { total: rows.length } }, etag: null };
    }
    if (answer.status !== 200 || !Array.isArray(answer.body?.data)) {
      return { choices: [], total: 0, message: `The ${target.label.toLowerCase()} could not be loaded: ${apiMessage(answer)}`, status: answer.status === 200 ? 502 : answer.status };
    }
    const rows = answer.body!.data as Array<Record<string, unknown>>;
    const total = answer.body!.meta?.total ?? rows.length;
    const choices = rows.map((row) => this.choiceOf(target, row));
    return { choices, total, message: choicesMessage(target, query, choices.length, total), status: 200 };
  }

  /** A row as a choice: its title and the start of its id (two rows may share a title), or the id alone. */
  private choiceOf(target: AdminModel, row: Record<string, unknown>): Choice {
    const id = String(row.id);
    return { value: id, label: target.titleField === 'id' ? id : `${String(row[target.titleField] ?? '')} (${id.slice(0, 8)})` };
  }

  /** The current value of a relation that is not among the choices, labelled by its row when the caller may read it. */
  private async currentChoice(visit: Visit, target: AdminModel, id: string): Promise<Choice> {
    const answer = await this.call(visit, 'GET', `/${target.table}/${encodeURIComponent(id)}`);
    const row = answer.status === 200 ? (answer.body?.data as Record<string, unknown> | undefined) : undefined;
    return row && typeof row === 'object' ? this.choiceOf(target, row) : { value: id, label: id };
  }

  /** `GET /admin/<table>/_choices?q=`: the relation search's answer for the panel's script, as JSON. */
  private async choicesJson(visit: Visit, model: AdminModel): Promise<Answer> {
    const found = await this.relationChoices(visit, model, (visit.search.get('q') ?? '').trim());
    if (found.status !== 200) return { status: found.status, json: { error: { message: found.message } } };
    return { status: 200, json: { data: found.choices, meta: { total: found.total, message: found.message } } };
  }

  private scriptHref(): string {
    return `${this.options.path}/static/admin.js?v=${this.assets.get('admin.js')?.hash ?? '0'}`;
  }

  /** A filter input: a select for enums and booleans, a search box otherwise. */
  private filterInput(field: AdminField, value: string): { name: string; label: string; value: string; choices: Choice[] | null } {
    let choices: Choice[] | null = null;
    if (field.field.enum) choices = field.field.enum.map((v) => ({ value: v, label: v }));
    else if (field.field.type === 'boolean') choices = [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }];
    return { name: `f_${field.name}`, label: field.label, value, choices };
  }

  // ---- helpers -----------------------------------------------------------

  /** One value as the list or the detail shows it; foreign keys link to their parent. */
  private cell(column: AdminField, value: unknown, short: boolean): { text: string; href: string | null; kind: string } {
    if (value === null || value === undefined || value === '') return { text: '—', href: null, kind: 'none' };
    if (column.target && typeof value === 'string') return { text: short ? value.slice(0, 8) : value, href: this.href(column.target.table, value), kind: 'link' };
    if (column.widget === 'file' && typeof value === 'string') return { text: value, href: this.fileHref(value), kind: 'link' };
    if (typeof value === 'boolean') return { text: value ? 'Yes' : 'No', href: null, kind: value ? 'yes' : 'no' };
    if (column.widget === 'datetime' && typeof value === 'string') return { text: value.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC'), href: null, kind: 'time' };
    let text = typeof value === 'object' ? (Array.isArray(value) && value.every((v) => typeof v !== 'object') ? value.join(', ') : JSON.stringify(value)) : String(value);
    if (short && text.length > 80) text = `${text.slice(0, 79)}…`;
    return { text, href: null, kind: typeof value === 'number' ? 'number' : 'text' };
  }

  /** Where a stored file is downloaded (the API's file route). */
  private fileHref(key: string): string {
    return `${this.app.config.pathPrefix}/files/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  private modelData(model: AdminModel): Record<string, unknown> {
    return { label: model.label, href: this.href(model.table), newHref: this.options.readOnly ? null : this.href(model.table, 'new') };
  }

  private href(...segments: string[]): string {
    return `${this.options.path}/${segments.map(encodeURIComponent).join('/')}`;
  }

  private locales(): string[] {
    const locales = this.app.registry.locales;
    return locales.supported ? [...locales.supported] : [locales.default];
  }

  private call(visit: Visit, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: Record<string, unknown>, ifMatch?: string, extra: Pick<ApiCall, 'raw' | 'localeMaps'> = {}): Promise<ApiAnswer> {
    const host = visit.req.headers.host;
    return this.api.call({ method, path, body, identity: visit.identity, ...(host ? { host } : {}), ...(ifMatch ? { ifMatch } : {}), ...extra });
  }

  private notFound(): Answer {
    return this.errorAnswer(404, 'Not found', 'There is no such page, model or record here.');
  }

  /** An API refusal shown as a page with the API's own status and message. */
  private apiFailure(answer: ApiAnswer, model: AdminModel | null): Answer {
    if (answer.status === 404) return this.notFound();
    const status = answer.status >= 400 ? answer.status : 502;
    const title = status === 401 || status === 403 ? 'Not allowed' : status >= 500 ? 'Service unavailable' : 'Request refused';
    return { status, template: 'error', data: { ...this.errorData(status, title, apiMessage(answer)), backHref: model ? this.href(model.table) : null } };
  }

  private errorAnswer(status: number, title: string, message: string): Answer {
    return { status, template: 'error', data: this.errorData(status, title, message) };
  }

  private errorData(status: number, title: string, message: string): Record<string, unknown> {
    return { ...this.layoutData(), heading: title, status, message, backHref: null };
  }

  private layoutData(): Record<string, unknown> {
    const css = this.assets.get('admin.css');
    return {
      title: this.options.title,
      home: `${this.options.path}/`,
      stylesheet: `${this.options.path}/static/admin.css?v=${css?.hash ?? '0'}`,
      nav: [...this.shown.values()].map((m) => ({ label: m.label, href: this.href(m.table) })),
    };
  }

  private answer(visit: Visit, answer: Answer): void {
    const headers: Record<string, string> = {};
    if (visit.newCookie) headers['Set-Cookie'] = visit.newCookie;
    if ('json' in answer) {
      const body = Buffer.from(JSON.stringify(answer.json), 'utf8');
      visit.res.writeHead(answer.status, { ...SECURITY_HEADERS, ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length), 'Cache-Control': 'no-store' });
      visit.res.end(body);
      return;
    }
    if ('redirect' in answer) {
      visit.res.writeHead(303, { ...SECURITY_HEADERS, ...headers, Location: answer.redirect, 'Content-Length': '0', 'Cache-Control': 'no-store' });
      visit.res.end();
      return;
    }
    const html = this.pages.render(answer.template, { ...this.layoutData(), ...answer.data });
    this.send(visit.res, answer.status, html, headers);
  }

  private send(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
    const body = Buffer.from(html, 'utf8');
    res.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(body.length), 'Cache-Control': 'no-store' });
    res.end(res.req?.method === 'HEAD' ? undefined : body);
  }

  private serveAsset(req: IncomingMessage, res: ServerResponse, name: string): void {
    const asset = this.assets.get(name);
    if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) {
      this.send(res, 404, this.pages.render('error', this.errorData(404, 'Not found', 'There is no such file.')), {});
      return;
    }
    const etag = `"${asset.hash}"`;
    const headers = { ...SECURITY_HEADERS, 'Content-Type': asset.type, ETag: etag, 'Cache-Control': 'public, max-age=31536000, immutable' };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(asset.body.length) });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }
}

/** Runs hooks in order, each calling the next, as a pipeline step does. */
async function runHooks(hooks: readonly Hook[], ctx: Context): Promise<void> {
  const at = async (i: number): Promise<void> => {
    if (i < hooks.length) await hooks[i]!(ctx, () => at(i + 1));
  };
  await at(0);
}

/** The API's own words for a refusal. */
function apiMessage(answer: ApiAnswer): string {
  const error = answer.body?.error;
  if (error?.message) return error.message;
  return answer.status >= 500 || answer.status === 0 ? 'The service is unavailable; try again shortly.' : `The service answered ${answer.status}.`;
}

function hintOf(field: AdminField, mode: FormMode): string | null {
  const f = field.field;
  if (field.widget === 'secret') return mode === 'edit' ? 'Leave empty to keep the current value.' : 'Never shown again once saved.';
  if (field.widget === 'datetime') return 'UTC';
  if (field.widget === 'list') return 'Separate values with commas.';
  if (field.widget === 'json') return 'JSON';
  if (f.immutable && mode === 'edit') return 'Set when created; cannot be changed.';
  if (f.readonly && mode === 'edit') return 'Read-only.';
  return f.description ?? null;
}

/** A localized field's per-locale values from a record (the split-mode companion, or the value itself when it is a map). */
function localizedValue(record: Record<string, unknown>, field: AdminField, suffix: string): Record<string, string> {
  const value = record[`${field.name}${suffix}`] ?? record[field.name];
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, string>;
  return typeof value === 'string' ? { '': value } : {};
}

/** What a relation's choices are, in words (the search's live status). */
function choicesMessage(target: AdminModel, query: string, shown: number, total: number): string {
  const many = target.label.toLowerCase();
  if (query === '') return total > shown ? `The first ${shown} of ${total} ${many}. Search to find another.` : `${total} ${many}.`;
  if (total === 0) return `No ${target.singular.toLowerCase()} matches “${query}”.`;
  const matches = `${total} ${total === 1 ? 'match' : 'matches'} for “${query}”`;
  return total > shown ? `${matches}; the first ${shown} are listed.` : `${matches}.`;
}
