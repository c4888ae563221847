export interface paths {
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page that renders this document (Swagger UI, served from this server) */
        get: operations["documentationPage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** A page that renders this document (Swagger UI, served from this server) (headers only) */
        head: operations["documentationPageHead"];
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file of the documentation page's viewer */
        get: operations["documentationAsset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** A file of the documentation page's viewer (headers only) */
        head: operations["documentationAssetHead"];
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Legacy health: always ok */
        get: operations["probeHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** Legacy health: always ok (headers only) */
        head: operations["probeHealthHead"];
        patch?: never;
        trace?: never;
    };
    "/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: 200 while the process runs, also while draining */
        get: operations["probeLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** Liveness: 200 while the process runs, also while draining (headers only) */
        head: operations["probeLiveHead"];
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document, rebuilt from the registry on every request */
        get: operations["openapiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** This OpenAPI 3.1 document, rebuilt from the registry on every request (headers only) */
        head: operations["openapiDocumentHead"];
        patch?: never;
        trace?: never;
    };
    "/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List projects
         * @description A page of Project records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listProject"];
        put?: never;
        /**
         * Create a Project
         * @description Writes a new Project from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createProject"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsProject"];
        /**
         * List projects (headers only)
         * @description A page of Project records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listProjectHead"];
        patch?: never;
        trace?: never;
    };
    "/projects/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /**
         * Read a Project
         * @description One Project by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readProject"];
        put?: never;
        post?: never;
        /**
         * Delete a Project
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteProject"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsProjectItem"];
        /**
         * Read a Project (headers only)
         * @description One Project by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readProjectHead"];
        /**
         * Change a Project
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateProject"];
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database and every readiness check */
        get: operations["probeReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /** Readiness: the database and every readiness check (headers only) */
        head: operations["probeReadyHead"];
        patch?: never;
        trace?: never;
    };
    "/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tasks
         * @description A page of Task records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listTask"];
        put?: never;
        /**
         * Create a Task
         * @description Writes a new Task from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createTask"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsTask"];
        /**
         * List tasks (headers only)
         * @description A page of Task records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listTaskHead"];
        patch?: never;
        trace?: never;
    };
    "/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        /**
         * Read a Task
         * @description One Task by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readTask"];
        put?: never;
        post?: never;
        /**
         * Delete a Task
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteTask"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsTaskItem"];
        /**
         * Read a Task (headers only)
         * @description One Task by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readTaskHead"];
        /**
         * Change a Task
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateTask"];
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The error envelope of every 4xx and 5xx answer (5xx messages are always generic). */
        Error: {
            error: {
                /**
                 * @description stable code; switch on it
                 * @enum {string}
                 */
                code: "UNAUTHORIZED" | "INVALID_CREDENTIALS" | "FORBIDDEN" | "CSRF_TOKEN_MISSING" | "CSRF_COOKIE_MISSING" | "CSRF_TOKEN_MISMATCH" | "CSRF_ORIGIN_REJECTED" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "CONFLICT" | "FOREIGN_KEY_VIOLATION" | "DELETE_RESTRICTED" | "PRECONDITION_FAILED" | "BODY_TOO_LARGE" | "FILE_TOO_LARGE" | "EXPORT_TOO_LARGE" | "URI_TOO_LONG" | "EXPECTATION_FAILED" | "HEADERS_TOO_LARGE" | "RANGE_NOT_SATISFIABLE" | "FILE_TYPE_NOT_ALLOWED" | "VALIDATION_ERROR" | "MISSING_LOCALE" | "IDEMPOTENCY_KEY_REUSED" | "INVALID_QUERY" | "INVALID_FORMAT" | "INVALID_AGGREGATE" | "INVALID_JSON" | "EMPTY_BODY" | "BODY_READ_ERROR" | "MULTIPART_ERROR" | "BAD_REQUEST" | "REQUEST_TIMEOUT" | "RATE_LIMITED" | "TIMEOUT" | "METHOD_NOT_IMPLEMENTED" | "NO_STORAGE" | "EXPORT_BUSY" | "REALTIME_BUSY" | "XLSX_NOT_INSTALLED" | "DB_ERROR" | "INTERNAL" | "PANIC" | "TX_BEGIN_ERROR" | "TX_COMMIT_ERROR" | "ENCRYPTION_NOT_CONFIGURED" | "ROLLUP_NO_TX" | "JOB_ENQUEUE_FAILED" | "INVALID_JOB_TYPE" | "DECRYPTION_ERROR";
                /** @description what went wrong and how to fix it */
                message: string;
                /** @description VALIDATION_ERROR: one entry per bad field; CONFLICT and FOREIGN_KEY_VIOLATION: table, column and detail */
                details?: components["schemas"]["ValidationDetail"][] | Record<string, never>;
            };
        };
        ValidationDetail: {
            field: string;
            message: string;
        };
        PageMeta: {
            /** @description rows matching the query */
            total: number;
            page: number;
            limit: number;
            pages: number;
            /**
             * @description set when the resolved locale is right-to-left
             * @enum {string}
             */
            _dir?: "rtl";
        };
        /** @description Keyset pagination: pass next_cursor as `cursor` for the next page. */
        CursorMeta: {
            limit: number;
            next_cursor: string | null;
            has_more: boolean;
            /** @enum {string} */
            _dir?: "rtl";
        };
        RecordMeta: {
            /**
             * @description set when the resolved locale is right-to-left
             * @enum {string}
             */
            _dir?: "rtl";
        };
        /** @description A project groups tasks. */
        Project: {
            /** Format: uuid */
            readonly id: string;
            name: string;
            /** @description URL-friendly name, set from `name` by a hook in app.ts; unique. */
            readonly slug: string;
            description: string | null;
            archived: boolean;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description related Task records; present with include=tasks */
            readonly tasks?: components["schemas"]["Task"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "tasks"[];
        };
        /** @description A Project under select=: only the chosen fields (and included relations) are present. */
        ProjectSelection: {
            /** Format: uuid */
            readonly id?: string;
            name?: string;
            /** @description URL-friendly name, set from `name` by a hook in app.ts; unique. */
            readonly slug?: string;
            description?: string | null;
            archived?: boolean;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description related Task records; present with include=tasks */
            readonly tasks?: components["schemas"]["Task"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "tasks"[];
        };
        /** @description Writable fields of a new Project; id, timestamps, readonly and unknown keys are ignored. */
        ProjectCreate: {
            name: string;
            description?: string | null;
            /** @default false */
            archived?: boolean;
        };
        /** @description Fields of Project to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        ProjectUpdate: {
            name?: string;
            description?: string | null;
            archived?: boolean;
        };
        ProjectEnvelope: {
            data: components["schemas"]["Project"];
        };
        ProjectReadEnvelope: {
            data: components["schemas"]["Project"] | components["schemas"]["ProjectSelection"];
        };
        ProjectPage: {
            data: (components["schemas"]["Project"] | components["schemas"]["ProjectSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description A piece of work in a project. */
        Task: {
            /** Format: uuid */
            readonly id: string;
            title: string;
            /** @enum {string} */
            status: "todo" | "doing" | "done";
            /**
             * Format: int32
             * @description 1 is the most urgent.
             */
            priority: number;
            /** Format: date-time */
            dueAt: string | null;
            /** @description The project it belongs to; deleting the project deletes its tasks. */
            projectId: string;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description the Project of projectId; present with include=project */
            readonly project?: components["schemas"]["Project"] | null;
        };
        /** @description A Task under select=: only the chosen fields (and included relations) are present. */
        TaskSelection: {
            /** Format: uuid */
            readonly id?: string;
            title?: string;
            /** @enum {string} */
            status?: "todo" | "doing" | "done";
            /**
             * Format: int32
             * @description 1 is the most urgent.
             */
            priority?: number;
            /** Format: date-time */
            dueAt?: string | null;
            /** @description The project it belongs to; deleting the project deletes its tasks. */
            projectId?: string;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description the Project of projectId; present with include=project */
            readonly project?: components["schemas"]["Project"] | null;
        };
        /** @description Writable fields of a new Task; id, timestamps, readonly and unknown keys are ignored. */
        TaskCreate: {
            title: string;
            /**
             * @default todo
             * @enum {string}
             */
            status?: "todo" | "doing" | "done";
            /**
             * @description 1 is the most urgent.
             * @default 3
             */
            priority?: number;
            /** Format: date-time */
            dueAt?: string | null;
            /** @description The project it belongs to; deleting the project deletes its tasks. */
            projectId: string;
        };
        /** @description Fields of Task to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        TaskUpdate: {
            title?: string;
            /** @enum {string} */
            status?: "todo" | "doing" | "done";
            /** @description 1 is the most urgent. */
            priority?: number;
            /** Format: date-time */
            dueAt?: string | null;
            /** @description The project it belongs to; deleting the project deletes its tasks. */
            projectId?: string;
        };
        TaskEnvelope: {
            data: components["schemas"]["Task"];
        };
        TaskReadEnvelope: {
            data: components["schemas"]["Task"] | components["schemas"]["TaskSelection"];
        };
        TaskPage: {
            data: (components["schemas"]["Task"] | components["schemas"]["TaskSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
    };
    responses: {
        /**
         * @description INVALID_QUERY: a malformed filter, sort, group index or other query parameter
         *
         *     INVALID_FORMAT: an export format other than csv or xlsx
         *
         *     INVALID_AGGREGATE: an invalid aggregate spec, or a body sent to the aggregate route
         *
         *     INVALID_JSON: the body is not a JSON object, not UTF-8, or has an unpaired surrogate escape
         *
         *     EMPTY_BODY: the body is empty
         *
         *     BODY_READ_ERROR: the body could not be read
         *
         *     MULTIPART_ERROR: a multipart body could not be parsed
         *
         *     BAD_REQUEST: the request is not valid HTTP/1.1 (broken chunked framing, both Content-Length and Transfer-Encoding, a NUL or other invalid character in a header, no Host header); the connection closes
         */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description DB_ERROR: any other database error (redacted)
         *
         *     INTERNAL: a hook returned an error
         *
         *     PANIC: a hook or the framework panicked
         *
         *     TX_BEGIN_ERROR: a transaction could not begin
         *
         *     TX_COMMIT_ERROR: a transaction could not commit
         *
         *     ENCRYPTION_NOT_CONFIGURED: an encrypted field was used without a key provider; nothing was written
         *
         *     ROLLUP_NO_TX: a write of a rollup's child model ran without a transaction (register transaction() for its create, update and delete); nothing was written
         *
         *     JOB_ENQUEUE_FAILED: the write was committed, but the job it enqueues after the commit (a queue that cannot join the transaction, such as redisQueue) could not be enqueued: the record stands, the job does not exist (no job_statuses row)
         *
         *     INVALID_JOB_TYPE: a hook or action enqueued a job whose type is not a job type name (dotted segments of letters, digits, '_' or '-'): the code's mistake, logged with the type and why; nothing is enqueued, and the transaction the request runs in rolls back
         *
         *     DECRYPTION_ERROR: a stored encrypted value fails authentication or names an unknown key id (logged with model, id and field, never the value)
         */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description TIMEOUT: the request did not finish within QueryTimeout (or the database's statement timeout) */
        Timeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description CONFLICT: a unique or similar constraint refused the write (details name table, column and detail), or an idempotent request is still running
         *
         *     FOREIGN_KEY_VIOLATION: the write references a record that does not exist
         *
         *     DELETE_RESTRICTED: the record still has dependent records and no onDelete action
         */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description BODY_TOO_LARGE: the request body is over the limit; nothing was written
         *
         *     FILE_TOO_LARGE: a file is over its max_size; nothing was written or stored
         *
         *     EXPORT_TOO_LARGE: the export would exceed the row limit
         */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description VALIDATION_ERROR: a directive rule failed; details list each bad field
         *
         *     MISSING_LOCALE: a required locale key is absent or empty
         *
         *     IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was already used with a different body
         */
        ValidationFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description METHOD_NOT_IMPLEMENTED: the method is not one HTTP defines, or CONNECT (this server is not a proxy); the connection closes
         *
         *     NO_STORAGE: multipart bodies and file routes need file storage
         *
         *     XLSX_NOT_INSTALLED: an XLSX export was asked for but the exceljs package is not installed
         */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /**
         * @description UNAUTHORIZED: a credential is missing or invalid
         *
         *     INVALID_CREDENTIALS: a login action got bad credentials
         */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description NOT_FOUND: no such record (or not visible to the caller) */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description the record id */
        id: string;
        /** @description 1-based page number */
        page: number;
        /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
        limit: number;
        /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
        locale: string;
        /** @description ETag of the record as read (or `*`); a stale ETag answers 412 and writes nothing */
        ifMatch: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    documentationPage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    documentationPageHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    documentationAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "swagger-ui.css" | "swagger-ui-bundle.js" | "favicon-32x32.png" | "mfx-docs.js";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file, with ETag and Cache-Control */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                    "text/javascript": string;
                    "image/png": string;
                };
            };
            /** @description not modified: If-None-Match names the current ETag */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    documentationAssetHead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "swagger-ui.css" | "swagger-ui-bundle.js" | "favicon-32x32.png" | "mfx-docs.js";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file, with ETag and Cache-Control */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description not modified: If-None-Match names the current ETag */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    probeHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
        };
    };
    probeHealthHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    probeLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
        };
    };
    probeLiveHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    openapiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    openapiDocumentHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listProject: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), slug (string), archived (boolean), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): tasks.{title, status, priority, dueAt, projectId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc" | "created_at:asc" | "created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("tasks" | "tasks.project")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over name */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "slug" | "description" | "archived" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Project records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectCreate"];
            };
        };
        responses: {
            /** @description the created Project */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsProject: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no body; see Allow */
            204: {
                headers: {
                    /** @description the methods this path answers */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listProjectHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), slug (string), archived (boolean), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): tasks.{title, status, priority, dueAt, projectId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc" | "created_at:asc" | "created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("tasks" | "tasks.project")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over name */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "slug" | "description" | "archived" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Project records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    readProject: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("tasks" | "tasks.project")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "slug" | "description" | "archived" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the Project */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsProjectItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no body; see Allow */
            204: {
                headers: {
                    /** @description the methods this path answers */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    readProjectHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("tasks" | "tasks.project")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "slug" | "description" | "archived" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the Project */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    updateProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProjectUpdate"];
            };
        };
        responses: {
            /** @description the updated Project */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    probeReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            /** @description starting, stopping, or a dependency failed */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "not_ready" | "starting" | "stopping";
                    };
                };
            };
        };
    };
    probeReadyHead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description starting, stopping, or a dependency failed */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listTask: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: title (string), status (string: todo|doing|done), priority (integer), dueAt (timestamp, nullable), projectId (string), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): project.{name, slug, archived, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("title:asc" | "title:desc" | "status:asc" | "status:desc" | "priority:asc" | "priority:desc" | "dueAt:asc" | "dueAt:desc" | "created_at:asc" | "created_at:desc" | "project.name:asc" | "project.name:desc" | "project.created_at:asc" | "project.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("project" | "project.tasks")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over title */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "status" | "priority" | "dueAt" | "projectId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Task records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createTask: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskCreate"];
            };
        };
        responses: {
            /** @description the created Task */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsTask: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no body; see Allow */
            204: {
                headers: {
                    /** @description the methods this path answers */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listTaskHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: title (string), status (string: todo|doing|done), priority (integer), dueAt (timestamp, nullable), projectId (string), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): project.{name, slug, archived, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("title:asc" | "title:desc" | "status:asc" | "status:desc" | "priority:asc" | "priority:desc" | "dueAt:asc" | "dueAt:desc" | "created_at:asc" | "created_at:desc" | "project.name:asc" | "project.name:desc" | "project.created_at:asc" | "project.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("project" | "project.tasks")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over title */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "status" | "priority" | "dueAt" | "projectId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Task records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    readTask: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("project" | "project.tasks")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "status" | "priority" | "dueAt" | "projectId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the Task */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted; no body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsTaskItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no body; see Allow */
            204: {
                headers: {
                    /** @description the methods this path answers */
                    Allow?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    readTaskHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("project" | "project.tasks")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "status" | "priority" | "dueAt" | "projectId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the Task */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description as for GET, without a body */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    updateTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskUpdate"];
            };
        };
        responses: {
            /** @description the updated Task */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
}
