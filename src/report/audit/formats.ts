// The output formats of `kprof audit` and its JSON schema id (the CLI reads these without loading the reports).

export const AUDIT_FORMATS = ['table', 'markdown', 'json', 'html'] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

/** The formats of the `--list` catalogue (it has no HTML form). */
export const AUDIT_LIST_FORMATS: readonly AuditFormat[] = ['table', 'markdown', 'json'];

/** The JSON's schema id: bump on any change of its shape (model/schema.ts AuditJson). */
export const AUDIT_SCHEMA = 'kprof.audit/3';
