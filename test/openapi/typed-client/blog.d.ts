export interface paths {
    "/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List comments
         * @description A page of Comment records (soft-deleted ones left out unless a filter names the marker), ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listComment"];
        put?: never;
        /**
         * Create a Comment
         * @description Writes a new Comment from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createComment"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsComment"];
        /**
         * List comments (headers only)
         * @description A page of Comment records (soft-deleted ones left out unless a filter names the marker), ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listCommentHead"];
        patch?: never;
        trace?: never;
    };
    "/comments/{id}": {
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
         * Read a Comment
         * @description One Comment by id (a soft-deleted one is 404). `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readComment"];
        put?: never;
        post?: never;
        /**
         * Delete a Comment (soft: the row is marked, not removed)
         * @description Marks the record deleted: it leaves lists and reads, its unique values become free again, and its row stays. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteComment"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsCommentItem"];
        /**
         * Read a Comment (headers only)
         * @description One Comment by id (a soft-deleted one is 404). `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readCommentHead"];
        /**
         * Change a Comment
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateComment"];
        trace?: never;
    };
    "/companies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List companies
         * @description A page of Company records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listCompany"];
        put?: never;
        /**
         * Create a Company
         * @description Writes a new Company from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createCompany"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsCompany"];
        /**
         * List companies (headers only)
         * @description A page of Company records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listCompanyHead"];
        patch?: never;
        trace?: never;
    };
    "/companies/{id}": {
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
         * Read a Company
         * @description One Company by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readCompany"];
        put?: never;
        post?: never;
        /**
         * Delete a Company
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteCompany"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsCompanyItem"];
        /**
         * Read a Company (headers only)
         * @description One Company by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readCompanyHead"];
        /**
         * Change a Company
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateCompany"];
        trace?: never;
    };
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
    "/post_tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List post_tags
         * @description A page of PostTag records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listPostTag"];
        put?: never;
        /**
         * Create a PostTag
         * @description Writes a new PostTag from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createPostTag"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsPostTag"];
        /**
         * List post_tags (headers only)
         * @description A page of PostTag records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listPostTagHead"];
        patch?: never;
        trace?: never;
    };
    "/post_tags/{id}": {
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
         * Read a PostTag
         * @description One PostTag by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readPostTag"];
        put?: never;
        post?: never;
        /**
         * Delete a PostTag
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deletePostTag"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsPostTagItem"];
        /**
         * Read a PostTag (headers only)
         * @description One PostTag by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readPostTagHead"];
        /**
         * Change a PostTag
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updatePostTag"];
        trace?: never;
    };
    "/posts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List posts
         * @description A page of Post records (soft-deleted ones left out unless a filter names the marker), ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listPost"];
        put?: never;
        /**
         * Create a Post
         * @description Writes a new Post from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createPost"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsPost"];
        /**
         * List posts (headers only)
         * @description A page of Post records (soft-deleted ones left out unless a filter names the marker), ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listPostHead"];
        patch?: never;
        trace?: never;
    };
    "/posts/{id}": {
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
         * Read a Post
         * @description One Post by id (a soft-deleted one is 404). `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readPost"];
        put?: never;
        post?: never;
        /**
         * Delete a Post (soft: the row is marked, not removed)
         * @description Marks the record deleted: it leaves lists and reads, its unique values become free again, and its row stays. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deletePost"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsPostItem"];
        /**
         * Read a Post (headers only)
         * @description One Post by id (a soft-deleted one is 404). `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readPostHead"];
        /**
         * Change a Post
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged. With If-Match, a stale ETag is 412 and nothing is written.
         */
        patch: operations["updatePost"];
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
    "/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tags
         * @description A page of Tag records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listTag"];
        put?: never;
        /**
         * Create a Tag
         * @description Writes a new Tag from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createTag"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsTag"];
        /**
         * List tags (headers only)
         * @description A page of Tag records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together), sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listTagHead"];
        patch?: never;
        trace?: never;
    };
    "/tags/{id}": {
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
         * Read a Tag
         * @description One Tag by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readTag"];
        put?: never;
        post?: never;
        /**
         * Delete a Tag
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteTag"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsTagItem"];
        /**
         * Read a Tag (headers only)
         * @description One Tag by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readTagHead"];
        /**
         * Change a Tag
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateTag"];
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description A page of User records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        get: operations["listUser"];
        put?: never;
        /**
         * Create a User
         * @description Writes a new User from the writable fields of the body (JSON, or multipart with file parts) and answers it with its id and timestamps. Fields left out take their default; id, timestamps, readonly and unknown keys are ignored. A rule a field breaks is 422 naming the field; a unique value already taken or a parent that does not exist is 409.
         */
        post: operations["createUser"];
        delete?: never;
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsUser"];
        /**
         * List users (headers only)
         * @description A page of User records, ordered by `sort` (by id without one). Narrow it with `filter` (at most 32 clauses; `filter[N]` groups OR together) and the full-text `q`, sort by up to 8 keys, load up to 8 relations with `include`, and return only some fields with `select`. Page with `page` and `limit`; meta carries the total and the page count.
         */
        head: operations["listUserHead"];
        patch?: never;
        trace?: never;
    };
    "/users/{id}": {
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
         * Read a User
         * @description One User by id. `include` loads related records, `select` returns only the chosen fields.
         */
        get: operations["readUser"];
        put?: never;
        post?: never;
        /**
         * Delete a User
         * @description Removes the record. Related records follow their onDelete rule; a parent whose children restrict it is 409. A record that is already gone is 404.
         */
        delete: operations["deleteUser"];
        /**
         * Allowed methods (browser preflights are answered earlier by CORS middleware)
         * @description Answers 204 with the Allow header listing the methods this path serves.
         */
        options: operations["optionsUserItem"];
        /**
         * Read a User (headers only)
         * @description One User by id. `include` loads related records, `select` returns only the chosen fields.
         */
        head: operations["readUserHead"];
        /**
         * Change a User
         * @description Writes the fields the body carries; keys left out keep their value, immutable, readonly and unknown keys are ignored. A body with no writable key answers the record unchanged.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/users/{id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Changes of a User, newest first
         * @description Runs the record's read pipeline first: a caller who cannot read the record gets 404.
         */
        get: operations["historyUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        /**
         * Changes of a User, newest first (headers only)
         * @description Runs the record's read pipeline first: a caller who cannot read the record gets 404.
         */
        head: operations["historyUserHead"];
        patch?: never;
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
        /** @description A comment on a post; soft delete comes from the SoftDelete embed. */
        Comment: {
            /** Format: uuid */
            readonly id: string;
            body: string;
            postId: string;
            userId: string | null;
            approved: boolean;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** Format: date-time */
            readonly deleted_at: string | null;
            /** @description the Post of postId; present with include=post */
            readonly post?: components["schemas"]["Post"] | null;
            /** @description the User of userId; present with include=user */
            readonly user?: components["schemas"]["User"] | null;
        };
        /** @description A Comment under select=: only the chosen fields (and included relations) are present. */
        CommentSelection: {
            /** Format: uuid */
            readonly id?: string;
            body?: string;
            postId?: string;
            userId?: string | null;
            approved?: boolean;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** Format: date-time */
            readonly deleted_at?: string | null;
            /** @description the Post of postId; present with include=post */
            readonly post?: components["schemas"]["Post"] | null;
            /** @description the User of userId; present with include=user */
            readonly user?: components["schemas"]["User"] | null;
        };
        /** @description Writable fields of a new Comment; id, timestamps, readonly and unknown keys are ignored. */
        CommentCreate: {
            body: string;
            postId: string;
            userId?: string | null;
            /** @default true */
            approved?: boolean;
        };
        /** @description Fields of Comment to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        CommentUpdate: {
            body?: string;
            postId?: string;
            userId?: string | null;
            approved?: boolean;
        };
        CommentEnvelope: {
            data: components["schemas"]["Comment"];
        };
        CommentReadEnvelope: {
            data: components["schemas"]["Comment"] | components["schemas"]["CommentSelection"];
        };
        CommentPage: {
            data: (components["schemas"]["Comment"] | components["schemas"]["CommentSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description A company that users work for. */
        Company: {
            /** Format: uuid */
            readonly id: string;
            name: string;
            country: string | null;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description related User records; present with include=users */
            readonly users?: components["schemas"]["User"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "users"[];
        };
        /** @description A Company under select=: only the chosen fields (and included relations) are present. */
        CompanySelection: {
            /** Format: uuid */
            readonly id?: string;
            name?: string;
            country?: string | null;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description related User records; present with include=users */
            readonly users?: components["schemas"]["User"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "users"[];
        };
        /** @description Writable fields of a new Company; id, timestamps, readonly and unknown keys are ignored. */
        CompanyCreate: {
            /** @description Unique. */
            name: string;
            country?: string | null;
        };
        /** @description Fields of Company to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        CompanyUpdate: {
            /** @description Unique. */
            name?: string;
            country?: string | null;
        };
        CompanyEnvelope: {
            data: components["schemas"]["Company"];
        };
        CompanyReadEnvelope: {
            data: components["schemas"]["Company"] | components["schemas"]["CompanySelection"];
        };
        CompanyPage: {
            data: (components["schemas"]["Company"] | components["schemas"]["CompanySelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description A blog post. */
        Post: {
            /** Format: uuid */
            readonly id: string;
            title: string;
            body: string;
            /** @enum {string} */
            status: "draft" | "published" | "archived";
            /** Format: int32 */
            views: number;
            /** Format: double */
            rating: number | null;
            keywords: string[];
            metadata: Record<string, never> | null;
            /** Format: date-time */
            publishedAt: string | null;
            slug: string | null;
            userId: string;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** Format: date-time */
            readonly deleted_at: string | null;
            /** @description the User of userId; present with include=author */
            readonly author?: components["schemas"]["User"] | null;
            /** @description related Comment records; present with include=comments */
            readonly comments?: components["schemas"]["Comment"][];
            /** @description related Tag records; present with include=tags */
            readonly tags?: components["schemas"]["Tag"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: ("comments" | "tags")[];
        };
        /** @description A Post under select=: only the chosen fields (and included relations) are present. */
        PostSelection: {
            /** Format: uuid */
            readonly id?: string;
            title?: string;
            body?: string;
            /** @enum {string} */
            status?: "draft" | "published" | "archived";
            /** Format: int32 */
            views?: number;
            /** Format: double */
            rating?: number | null;
            keywords?: string[];
            metadata?: Record<string, never> | null;
            /** Format: date-time */
            publishedAt?: string | null;
            slug?: string | null;
            userId?: string;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** Format: date-time */
            readonly deleted_at?: string | null;
            /** @description the User of userId; present with include=author */
            readonly author?: components["schemas"]["User"] | null;
            /** @description related Comment records; present with include=comments */
            readonly comments?: components["schemas"]["Comment"][];
            /** @description related Tag records; present with include=tags */
            readonly tags?: components["schemas"]["Tag"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: ("comments" | "tags")[];
        };
        /** @description Writable fields of a new Post; id, timestamps, readonly and unknown keys are ignored. */
        PostCreate: {
            title: string;
            body?: string;
            /**
             * @default draft
             * @enum {string}
             */
            status?: "draft" | "published" | "archived";
            /** @default 0 */
            views?: number;
            rating?: number | null;
            keywords?: string[];
            metadata?: Record<string, never> | null;
            /** Format: date-time */
            publishedAt?: string | null;
            /** @description Set on create only; updates ignore it. */
            slug?: string | null;
            userId: string;
        };
        /** @description Fields of Post to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        PostUpdate: {
            title?: string;
            body?: string;
            /** @enum {string} */
            status?: "draft" | "published" | "archived";
            views?: number;
            rating?: number | null;
            keywords?: string[];
            metadata?: Record<string, never> | null;
            /** Format: date-time */
            publishedAt?: string | null;
            userId?: string;
        };
        PostEnvelope: {
            data: components["schemas"]["Post"];
        };
        PostReadEnvelope: {
            data: components["schemas"]["Post"] | components["schemas"]["PostSelection"];
        };
        PostPage: {
            data: (components["schemas"]["Post"] | components["schemas"]["PostSelection"])[];
            meta: components["schemas"]["PageMeta"] | components["schemas"]["CursorMeta"];
        };
        /** @description Junction between posts and tags. */
        PostTag: {
            /** Format: uuid */
            readonly id: string;
            postId: string;
            tagId: string;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description the Post of postId; present with include=post */
            readonly post?: components["schemas"]["Post"] | null;
            /** @description the Tag of tagId; present with include=tag */
            readonly tag?: components["schemas"]["Tag"] | null;
        };
        /** @description A PostTag under select=: only the chosen fields (and included relations) are present. */
        PostTagSelection: {
            /** Format: uuid */
            readonly id?: string;
            postId?: string;
            tagId?: string;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description the Post of postId; present with include=post */
            readonly post?: components["schemas"]["Post"] | null;
            /** @description the Tag of tagId; present with include=tag */
            readonly tag?: components["schemas"]["Tag"] | null;
        };
        /** @description Writable fields of a new PostTag; id, timestamps, readonly and unknown keys are ignored. */
        PostTagCreate: {
            postId: string;
            tagId: string;
        };
        /** @description Fields of PostTag to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        PostTagUpdate: {
            postId?: string;
            tagId?: string;
        };
        PostTagEnvelope: {
            data: components["schemas"]["PostTag"];
        };
        PostTagReadEnvelope: {
            data: components["schemas"]["PostTag"] | components["schemas"]["PostTagSelection"];
        };
        PostTagPage: {
            data: (components["schemas"]["PostTag"] | components["schemas"]["PostTagSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description A tag on posts. */
        Tag: {
            /** Format: uuid */
            readonly id: string;
            name: string;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description related Post records; present with include=posts */
            readonly posts?: components["schemas"]["Post"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "posts"[];
        };
        /** @description A Tag under select=: only the chosen fields (and included relations) are present. */
        TagSelection: {
            /** Format: uuid */
            readonly id?: string;
            name?: string;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description related Post records; present with include=posts */
            readonly posts?: components["schemas"]["Post"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: "posts"[];
        };
        /** @description Writable fields of a new Tag; id, timestamps, readonly and unknown keys are ignored. */
        TagCreate: {
            /** @description Unique. */
            name: string;
        };
        /** @description Fields of Tag to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        TagUpdate: {
            /** @description Unique. */
            name?: string;
        };
        TagEnvelope: {
            data: components["schemas"]["Tag"];
        };
        TagReadEnvelope: {
            data: components["schemas"]["Tag"] | components["schemas"]["TagSelection"];
        };
        TagPage: {
            data: (components["schemas"]["Tag"] | components["schemas"]["TagSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description Someone who writes posts and comments. */
        User: {
            /** Format: uuid */
            readonly id: string;
            /** @description Display name. */
            name: string;
            email: string;
            /** @enum {string} */
            role: "admin" | "editor" | "member";
            /** @description Free text shown on the profile. */
            bio: string | null;
            companyId: string | null;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** @description the Company of companyId; present with include=company */
            readonly company?: components["schemas"]["Company"] | null;
            /** @description related Post records; present with include=posts */
            readonly posts?: components["schemas"]["Post"][];
            /** @description related Comment records; present with include=comments */
            readonly comments?: components["schemas"]["Comment"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: ("posts" | "comments")[];
        };
        /** @description A User under select=: only the chosen fields (and included relations) are present. */
        UserSelection: {
            /** Format: uuid */
            readonly id?: string;
            /** @description Display name. */
            name?: string;
            email?: string;
            /** @enum {string} */
            role?: "admin" | "editor" | "member";
            /** @description Free text shown on the profile. */
            bio?: string | null;
            companyId?: string | null;
            /** Format: date-time */
            readonly created_at?: string;
            /** Format: date-time */
            readonly updated_at?: string;
            /** @description the Company of companyId; present with include=company */
            readonly company?: components["schemas"]["Company"] | null;
            /** @description related Post records; present with include=posts */
            readonly posts?: components["schemas"]["Post"][];
            /** @description related Comment records; present with include=comments */
            readonly comments?: components["schemas"]["Comment"][];
            /** @description the included relations whose list was cut at the per-record cap (query_limits:maxIncludePerParent); present only when one was */
            readonly _truncated?: ("posts" | "comments")[];
        };
        /** @description Writable fields of a new User; id, timestamps, readonly and unknown keys are ignored. */
        UserCreate: {
            /** @description Display name. */
            name: string;
            /** @description Unique. */
            email: string;
            password?: string;
            /**
             * @default member
             * @enum {string}
             */
            role?: "admin" | "editor" | "member";
            /** @description Free text shown on the profile. */
            bio?: string | null;
            companyId?: string | null;
        };
        /** @description Fields of User to change; omitted keys keep their value, immutable, readonly and unknown keys are ignored. */
        UserUpdate: {
            /** @description Display name. */
            name?: string;
            /** @description Unique. */
            email?: string;
            password?: string;
            /** @enum {string} */
            role?: "admin" | "editor" | "member";
            /** @description Free text shown on the profile. */
            bio?: string | null;
            companyId?: string | null;
        };
        UserEnvelope: {
            data: components["schemas"]["User"];
        };
        UserReadEnvelope: {
            data: components["schemas"]["User"] | components["schemas"]["UserSelection"];
        };
        UserPage: {
            data: (components["schemas"]["User"] | components["schemas"]["UserSelection"])[];
            meta: components["schemas"]["PageMeta"];
        };
        /** @description A change of a User, newest first. */
        UserHistory: {
            /** Format: uuid */
            id: string;
            record_id: string;
            version: number;
            /** @enum {string} */
            operation: "create" | "update" | "delete";
            actor_id?: string | null;
            /** Format: date-time */
            timestamp: string;
            request_id?: string | null;
            /** @description field → {old, new} */
            diff: {
                [key: string]: {
                    old: unknown;
                    new: unknown;
                };
            };
            /** @description the full row after the change */
            snapshot?: Record<string, never>;
        };
        UserHistoryPage: {
            data: components["schemas"]["UserHistory"][];
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
        /** @description NOT_FOUND: no such record (or not visible to the caller) */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description PRECONDITION_FAILED: If-Match does not match the current ETag; nothing was written */
        PreconditionFailed: {
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
    listComment: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: postId (string), userId (string, nullable), approved (boolean), deleted_at (timestamp, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): post.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; user.{name, email, role, companyId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("approved:asc" | "approved:desc" | "post.title:asc" | "post.title:desc" | "post.status:asc" | "post.status:desc" | "post.views:asc" | "post.views:desc" | "post.rating:asc" | "post.rating:desc" | "post.publishedAt:asc" | "post.publishedAt:desc" | "post.created_at:asc" | "post.created_at:desc" | "user.name:asc" | "user.name:desc" | "user.role:asc" | "user.role:desc" | "user.created_at:asc" | "user.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "user" | "user.company" | "user.posts" | "user.comments")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over body */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "body" | "postId" | "userId" | "approved" | "created_at" | "updated_at" | "deleted_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Comment records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createComment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CommentCreate"];
            };
        };
        responses: {
            /** @description the created Comment */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsComment: {
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
    listCommentHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: postId (string), userId (string, nullable), approved (boolean), deleted_at (timestamp, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): post.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; user.{name, email, role, companyId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("approved:asc" | "approved:desc" | "post.title:asc" | "post.title:desc" | "post.status:asc" | "post.status:desc" | "post.views:asc" | "post.views:desc" | "post.rating:asc" | "post.rating:desc" | "post.publishedAt:asc" | "post.publishedAt:desc" | "post.created_at:asc" | "post.created_at:desc" | "user.name:asc" | "user.name:desc" | "user.role:asc" | "user.role:desc" | "user.created_at:asc" | "user.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "user" | "user.company" | "user.posts" | "user.comments")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over body */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "body" | "postId" | "userId" | "approved" | "created_at" | "updated_at" | "deleted_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Comment records */
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
    readComment: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "user" | "user.company" | "user.posts" | "user.comments")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "body" | "postId" | "userId" | "approved" | "created_at" | "updated_at" | "deleted_at")[];
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
            /** @description the Comment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteComment: {
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsCommentItem: {
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
    readCommentHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "user" | "user.company" | "user.posts" | "user.comments")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "body" | "postId" | "userId" | "approved" | "created_at" | "updated_at" | "deleted_at")[];
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
            /** @description the Comment */
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
    updateComment: {
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
                "application/json": components["schemas"]["CommentUpdate"];
            };
        };
        responses: {
            /** @description the updated Comment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CommentEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    listCompany: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), country (string, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): users.{name, email, role, companyId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("users" | "users.company" | "users.posts" | "users.comments")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "country" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Company records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompanyPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createCompany: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CompanyCreate"];
            };
        };
        responses: {
            /** @description the created Company */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompanyEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsCompany: {
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
    listCompanyHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), country (string, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): users.{name, email, role, companyId, created_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("users" | "users.company" | "users.posts" | "users.comments")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "country" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Company records */
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
    readCompany: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("users" | "users.company" | "users.posts" | "users.comments")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "country" | "created_at" | "updated_at")[];
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
            /** @description the Company */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompanyReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteCompany: {
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsCompanyItem: {
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
    readCompanyHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("users" | "users.company" | "users.posts" | "users.comments")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "country" | "created_at" | "updated_at")[];
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
            /** @description the Company */
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
    updateCompany: {
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
                "application/json": components["schemas"]["CompanyUpdate"];
            };
        };
        responses: {
            /** @description the updated Company */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompanyEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
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
    listPostTag: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: postId (string), tagId (string). Through relations (`<relation>.<field>:<operator>:<value>`): post.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; tag.{name}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("post.title:asc" | "post.title:desc" | "post.status:asc" | "post.status:desc" | "post.views:asc" | "post.views:desc" | "post.rating:asc" | "post.rating:desc" | "post.publishedAt:asc" | "post.publishedAt:desc" | "post.created_at:asc" | "post.created_at:desc" | "tag.name:asc" | "tag.name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "tag" | "tag.posts")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "postId" | "tagId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of PostTag records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostTagPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createPostTag: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostTagCreate"];
            };
        };
        responses: {
            /** @description the created PostTag */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostTagEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsPostTag: {
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
    listPostTagHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: postId (string), tagId (string). Through relations (`<relation>.<field>:<operator>:<value>`): post.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; tag.{name}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("post.title:asc" | "post.title:desc" | "post.status:asc" | "post.status:desc" | "post.views:asc" | "post.views:desc" | "post.rating:asc" | "post.rating:desc" | "post.publishedAt:asc" | "post.publishedAt:desc" | "post.created_at:asc" | "post.created_at:desc" | "tag.name:asc" | "tag.name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "tag" | "tag.posts")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "postId" | "tagId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of PostTag records */
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
    readPostTag: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "tag" | "tag.posts")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "postId" | "tagId" | "created_at" | "updated_at")[];
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
            /** @description the PostTag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostTagReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deletePostTag: {
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsPostTagItem: {
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
    readPostTagHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("post" | "post.author" | "post.comments" | "post.tags" | "tag" | "tag.posts")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "postId" | "tagId" | "created_at" | "updated_at")[];
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
            /** @description the PostTag */
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
    updatePostTag: {
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
                "application/json": components["schemas"]["PostTagUpdate"];
            };
        };
        responses: {
            /** @description the updated PostTag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostTagEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    listPost: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: title (string), status (string: draft|published|archived), views (integer), rating (number, nullable), keywords (json_array), publishedAt (timestamp, nullable), slug (string, nullable), userId (string), created_at (timestamp), deleted_at (timestamp, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): author.{name, email, role, companyId, created_at}; comments.{postId, userId, approved, deleted_at}; tags.{name}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns (keywords): `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("title:asc" | "title:desc" | "status:asc" | "status:desc" | "views:asc" | "views:desc" | "rating:asc" | "rating:desc" | "publishedAt:asc" | "publishedAt:desc" | "created_at:asc" | "created_at:desc" | "author.name:asc" | "author.name:desc" | "author.role:asc" | "author.role:desc" | "author.created_at:asc" | "author.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("author" | "author.company" | "author.posts" | "author.comments" | "comments" | "comments.post" | "comments.user" | "tags" | "tags.posts")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over title, body */
                q?: string;
                /** @description keyset pagination by created_at: send it empty for the first page, then meta.next_cursor; meta is then {limit, next_cursor, has_more} */
                cursor?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "body" | "status" | "views" | "rating" | "keywords" | "metadata" | "publishedAt" | "slug" | "userId" | "created_at" | "updated_at" | "deleted_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Post records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createPost: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostCreate"];
            };
        };
        responses: {
            /** @description the created Post */
            201: {
                headers: {
                    /** @description quoted MD5 of the body; send it back as If-Match */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsPost: {
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
    listPostHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: title (string), status (string: draft|published|archived), views (integer), rating (number, nullable), keywords (json_array), publishedAt (timestamp, nullable), slug (string, nullable), userId (string), created_at (timestamp), deleted_at (timestamp, nullable). Through relations (`<relation>.<field>:<operator>:<value>`): author.{name, email, role, companyId, created_at}; comments.{postId, userId, approved, deleted_at}; tags.{name}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns (keywords): `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("title:asc" | "title:desc" | "status:asc" | "status:desc" | "views:asc" | "views:desc" | "rating:asc" | "rating:desc" | "publishedAt:asc" | "publishedAt:desc" | "created_at:asc" | "created_at:desc" | "author.name:asc" | "author.name:desc" | "author.role:asc" | "author.role:desc" | "author.created_at:asc" | "author.created_at:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("author" | "author.company" | "author.posts" | "author.comments" | "comments" | "comments.post" | "comments.user" | "tags" | "tags.posts")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over title, body */
                q?: string;
                /** @description keyset pagination by created_at: send it empty for the first page, then meta.next_cursor; meta is then {limit, next_cursor, has_more} */
                cursor?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "body" | "status" | "views" | "rating" | "keywords" | "metadata" | "publishedAt" | "slug" | "userId" | "created_at" | "updated_at" | "deleted_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Post records */
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
    readPost: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("author" | "author.company" | "author.posts" | "author.comments" | "comments" | "comments.post" | "comments.user" | "tags" | "tags.posts")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "body" | "status" | "views" | "rating" | "keywords" | "metadata" | "publishedAt" | "slug" | "userId" | "created_at" | "updated_at" | "deleted_at")[];
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
            /** @description the Post */
            200: {
                headers: {
                    /** @description quoted MD5 of the body; send it back as If-Match */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deletePost: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETag of the record as read (or `*`); a stale ETag answers 412 and writes nothing */
                "If-Match"?: components["parameters"]["ifMatch"];
            };
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            412: components["responses"]["PreconditionFailed"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsPostItem: {
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
    readPostHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("author" | "author.company" | "author.posts" | "author.comments" | "comments" | "comments.post" | "comments.user" | "tags" | "tags.posts")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "title" | "body" | "status" | "views" | "rating" | "keywords" | "metadata" | "publishedAt" | "slug" | "userId" | "created_at" | "updated_at" | "deleted_at")[];
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
            /** @description the Post */
            200: {
                headers: {
                    /** @description quoted MD5 of the body; send it back as If-Match */
                    ETag?: string;
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
    updatePost: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETag of the record as read (or `*`); a stale ETag answers 412 and writes nothing */
                "If-Match"?: components["parameters"]["ifMatch"];
            };
            path: {
                /** @description the record id */
                id: components["parameters"]["id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostUpdate"];
            };
        };
        responses: {
            /** @description the updated Post */
            200: {
                headers: {
                    /** @description quoted MD5 of the body; send it back as If-Match */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            412: components["responses"]["PreconditionFailed"];
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
    listTag: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string). Through relations (`<relation>.<field>:<operator>:<value>`): posts.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("posts" | "posts.author" | "posts.comments" | "posts.tags")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Tag records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TagPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createTag: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TagCreate"];
            };
        };
        responses: {
            /** @description the created Tag */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TagEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsTag: {
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
    listTagHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string). Through relations (`<relation>.<field>:<operator>:<value>`): posts.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("posts" | "posts.author" | "posts.comments" | "posts.tags")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of Tag records */
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
    readTag: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("posts" | "posts.author" | "posts.comments" | "posts.tags")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "created_at" | "updated_at")[];
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
            /** @description the Tag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TagReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteTag: {
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsTagItem: {
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
    readTagHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("posts" | "posts.author" | "posts.comments" | "posts.tags")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "created_at" | "updated_at")[];
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
            /** @description the Tag */
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
    updateTag: {
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
                "application/json": components["schemas"]["TagUpdate"];
            };
        };
        responses: {
            /** @description the updated Tag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TagEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    listUser: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), email (string), role (string: admin|editor|member), companyId (string, nullable), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): company.{name, country}; posts.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; comments.{postId, userId, approved, deleted_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc" | "role:asc" | "role:desc" | "created_at:asc" | "created_at:desc" | "company.name:asc" | "company.name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("company" | "company.users" | "posts" | "posts.author" | "posts.comments" | "posts.tags" | "comments" | "comments.post" | "comments.user")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over name */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "email" | "role" | "bio" | "companyId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of User records */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCreate"];
            };
        };
        responses: {
            /** @description the created User */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsUser: {
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
    listUserHead: {
        parameters: {
            query?: {
                /** @description `<field>:<operator>:<value>`, repeatable; clauses AND together. Filterable fields: name (string), email (string), role (string: admin|editor|member), companyId (string, nullable), created_at (timestamp). Through relations (`<relation>.<field>:<operator>:<value>`): company.{name, country}; posts.{title, status, views, rating, keywords, publishedAt, slug, userId, created_at, deleted_at}; comments.{postId, userId, approved, deleted_at}. Operators: eq, neq, gt, gte, lt, lte, like, ilike, contains, starts_with, ends_with, has, not_has, in, not_in, between, is_null, not_null. `in`/`not_in` take a comma list, `between` takes `lo,hi`, `is_null`/`not_null` take no value; `like`/`ilike` take a raw SQL pattern; `contains`/`starts_with`/`ends_with` match literally, case-insensitively; `has`/`not_has` only on JSON columns: `field:has:element` or `field:has:key=value`. */
                filter?: string[];
                /** @description OR groups: replace N with a non-negative integer (`filter[0]=...&filter[0]=...`); clauses with the same N are ORed, different N AND together and with bare `filter` clauses; same clause shape and fields as `filter`. A non-integer N is 400. */
                "filter[N]"?: string[];
                /** @description repeatable (or a comma list in one parameter), applied left to right; without sort, records come ordered by id */
                sort?: ("name:asc" | "name:desc" | "role:asc" | "role:desc" | "created_at:asc" | "created_at:desc" | "company.name:asc" | "company.name:desc")[];
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("company" | "company.users" | "posts" | "posts.author" | "posts.comments" | "posts.tags" | "comments" | "comments.post" | "comments.user")[];
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
                /** @description full-text search over name */
                q?: string;
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "email" | "role" | "bio" | "companyId" | "created_at" | "updated_at")[];
                /** @description locale code for localized fields (before Accept-Language where the server reads it); an unsupported code falls back to the default locale. Writes store a bare string under it. */
                locale?: components["parameters"]["locale"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of User records */
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
    readUser: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("company" | "company.users" | "posts" | "posts.author" | "posts.comments" | "posts.tags" | "comments" | "comments.post" | "comments.user")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "email" | "role" | "bio" | "companyId" | "created_at" | "updated_at")[];
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
            /** @description the User */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserReadEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteUser: {
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
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    optionsUserItem: {
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
    readUserHead: {
        parameters: {
            query?: {
                /** @description comma-separated relation keys to load (one nested level, `a.b`; at most 8 paths); soft-deleted related rows are left out. A list relation carries at most 100 records per record (the first by id): a record whose list was cut names the relation in its `_truncated` list (read the rest from the related list route). A response carries at most 5000 related records, counted as sent (nested ones under each parent); a request that would carry more is 400 INVALID_QUERY: lower limit or include less. */
                include?: ("company" | "company.users" | "posts" | "posts.author" | "posts.comments" | "posts.tags" | "comments" | "comments.post" | "comments.user")[];
                /** @description comma-separated field names; records then carry only those keys (plus included relations) */
                select?: ("id" | "name" | "email" | "role" | "bio" | "companyId" | "created_at" | "updated_at")[];
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
            /** @description the User */
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
    updateUser: {
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
                "application/json": components["schemas"]["UserUpdate"];
            };
        };
        responses: {
            /** @description the updated User */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserEnvelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            504: components["responses"]["Timeout"];
        };
    };
    historyUser: {
        parameters: {
            query?: {
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
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
            /** @description a page of history rows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserHistoryPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["Timeout"];
        };
    };
    historyUserHead: {
        parameters: {
            query?: {
                /** @description 1-based page number */
                page?: components["parameters"]["page"];
                /** @description page size; default 20; any larger value is accepted and clamped to 200 (meta.limit says what was used) */
                limit?: components["parameters"]["limit"];
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
            /** @description a page of history rows */
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
}
