// Checks every response of the end-to-end suites against the server's own
// OpenAPI document, so the document cannot drift from the behaviour.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Doc = { paths: Record<string, Record<string, any>>; components: { responses?: Record<string, any> } };

const DOC_ID = 'urn:mfx:openapi';
/** Answered by the router before any route is chosen (a URI over 8 KiB), so no operation lists it. */
const BEFORE_ROUTING = new Set([414]);

/** Documented paths whose last parameter takes the rest of the path, slashes included. */
const REST_PATHS = /\/files\/\{key\}$/;

interface Template {
  path: string;
  segments: (string | null)[];
  params: number;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Validates (method, path, status, body) against the document: the route and
 * status must be documented, and the body must match the schema of that
 * response (or be empty when the response has no content).
 */
export class ResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly templates: Template[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, DOC_ID);
    this.templates = Object.keys(doc.paths)
      .map((path) => {
        const segments = path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? null : s));
        return { path, segments, params: segments.filter((s) => s === null).length };
      })
      // Static segments win over parameters, as in the router.
      .sort((a, b) => a.params - b.params);
  }

  private template(path: string): Template | undefined {
    const parts = path.split('/').filter(Boolean);
    const exact = this.templates.find((t) => t.segments.length === parts.length && t.segments.every((s, i) => s === null || s === parts[i]));
    if (exact) return exact;
    // A file key spans segments (`/files/2026/11/<id>` is `/files/{key}`): the router's rest parameter.
    return this.templates.find(
      (t) => REST_PATHS.test(t.path) && parts.length > t.segments.length && t.segments.slice(0, -1).every((s, i) => s === null || s === parts[i]),
    );
  }

  private validatorFor(ref: string) {
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${ref}` });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  /**
   * A problem description, or null when the response matches the document.
   * `contentType` (the response header) must be one the document lists;
   * JSON bodies are validated against its schema, other media types (streams,
   * pages) only by their type.
   */
  check(method: string, pathAndQuery: string, status: number, text: string, contentType?: string | null): string | null {
    const [path] = pathAndQuery.split('?');
    const verb = method.toLowerCase();
    const template = this.template(path);
    const operation = template ? this.doc.paths[template.path][verb] : undefined;
    // HEAD answers carry no body, errors included.
    const envelope = () => (verb === 'head' ? (text === '' ? null : `${method} ${path} ${status} has a body`) : this.checkBody('/components/schemas/Error', status, text));
    if (!operation) {
      // Not a documented route: only an error envelope (404 no route, 405, 414) may come back.
      if (status < 400) return `${method} ${path} answered ${status} but the document has no such operation`;
      return envelope();
    }
    const base = pointer('', 'paths', template!.path, verb, 'responses');
    // `default` covers any status an operation does not list (custom actions use it).
    const key = operation.responses[String(status)] ? String(status) : operation.responses.default ? 'default' : String(status);
    let response = operation.responses[key];
    let responsePointer = `${base}/${key}`;
    if (!response) {
      if (BEFORE_ROUTING.has(status)) return envelope();
      return `${method} ${template!.path} answered ${status}, which the document does not list (documented: ${Object.keys(operation.responses).join(', ')})`;
    }
    if (response.$ref) {
      responsePointer = response.$ref.slice(1);
      response = this.doc.components.responses?.[response.$ref.split('/').pop()];
    }
    const schema = response?.content?.['application/json']?.schema;
    if (verb === 'head' || !response?.content) {
      return text === '' ? null : `${method} ${template!.path} ${status} has a body but the document says it has none`;
    }
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    if (mediaType && mediaType !== 'application/json') {
      const listed = Object.keys(response.content);
      const ranges = [mediaType, `${mediaType.split('/')[0]}/*`, '*/*'];
      return ranges.some((range) => listed.includes(range)) ? null : `${method} ${template!.path} ${status} answered ${mediaType}, which the document does not list (documented: ${listed.join(', ')})`;
    }
    if (!schema) {
      // A non-JSON content type (export files, streamed actions): JSON answered there is a mismatch.
      return mediaType === 'application/json' ? `${method} ${template!.path} ${status} answered JSON, which the document does not list (documented: ${Object.keys(response.content).join(', ')})` : null;
    }
    return this.checkBody(`${responsePointer}/content/${pointer('application/json')}/schema`, status, text, `${method} ${template!.path}`);
  }

  private checkBody(schemaPointer: string, status: number, text: string, what = 'error envelope'): string | null {
    if (text === '') return `${what} ${status} has no body but the document describes one`;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${what} ${status} is not JSON`;
    }
    const validate = this.validatorFor(schemaPointer);
    if (validate(body)) return null;
    const errors = validate.errors ?? [];
    return `${what} ${status} does not match the document: ${errors
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
      .join('; ')}\nbody: ${text.slice(0, 400)}`;
  }
}
