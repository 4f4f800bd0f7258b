// Limits that keep one client from holding or filling the server: the largest request body, the
// HTTP timeouts of the node servers, and the longest lists one account or instance may hold. The
// documents state each of them (PayloadTooLarge in openapi/shared/components.yaml, and the
// descriptions of the operations that create list items); test/reliability/limits.test.ts checks
// that they agree with these numbers.

/**
 * Request bodies larger than this get 413 before they are parsed. 64 KiB: the largest legitimate
 * body is an integration config carrying a PEM private key (a 4096-bit RSA key is about 3.3 KB),
 * twenty times below it; a list of alarm recipients at the per-instance cap is under 1 KB.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The control plane's request bodies: a state dump (PUT /__tusk/state) may be large (about 10 KB
 * per instance); every other control's body is a few fields. Larger bodies are a 413, refused
 * before they are read whole.
 */
export const CONTROL_BODY_BYTES = { state: 256 * 1024 * 1024, control: 1024 * 1024 } as const;

/** HTTP timeouts of both node servers (ms); see startTusk. */
export const SERVER_TIMEOUTS = {
  /** The request line and headers must arrive within this time (slowloris). */
  headersMs: 10_000,
  /** The whole request, body included, must arrive within this time. */
  requestMs: 30_000,
  /** An idle keep-alive connection is closed after this time. */
  keepAliveMs: 5_000,
  /** How often node checks the two timeouts above. */
  checkIntervalMs: 1_000,
  /** On close, how long a request already read may take to be answered before it is cut. */
  drainMs: 5_000,
} as const;

/**
 * Nesting levels (objects and arrays) a request body may have. Free-form members (a recipient's
 * `options`) are copied and serialised recursively: 64 KiB of `[` would nest 65,536 levels and
 * overflow the stack. The deepest documented body nests 3 levels.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * The longest lists one account or instance holds; a create beyond them is a 400 naming the list.
 * 10,000 instances per account leaves room for the benchmark's 10,000-instance run.
 */
export const LIST_CAPS = {
  instancesPerAccount: 10_000,
  teamMembersPerAccount: 1_000,
  recipientsPerInstance: 100,
  alarmsPerInstance: 100,
  /** Per kind: log integrations, and metrics integrations. */
  integrationsPerInstance: 50,
  /** Backups taken in the last 30 days (the daily ones included). */
  backupsPerInstance: 1_000,
  /** The audit log keeps the latest events; older ones are dropped (no error). */
  auditEventsPerAccount: 100_000,
} as const;

/**
 * The times Tusk keeps (ms since the epoch): the years 0000 to 9999, i.e. 0000-01-01T00:00:00.000Z
 * to 9999-12-31T23:59:59.999Z. Every date form of the documents writes a four-digit year (ISO 8601
 * `date-time`, `yyyy-mm-dd hh:mm:ss+0000`, the audit log's timestamps); beyond it Date writes the
 * extended `+010000-…` form, and beyond ±8.64e15 ms it throws. A loaded state's times lie within it.
 */
export const TIME_RANGE = { min: -62_167_219_200_000, max: 253_402_300_799_999 } as const;

/**
 * Where the virtual clock may stand: 1970-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z. The
 * stores date records from the clock's now, backwards (the seeded history: 40 days of backups,
 * invoices, audit events) and forwards (maintenance windows weeks ahead, provisioning, backup and
 * restore delays); the room left to TIME_RANGE (1970 years before, one year after) keeps all of
 * them within it, so a dump written at any allowed time loads again. A move, a pin or a loaded
 * clock outside it is a 400; a running clock that reaches an end stands there.
 */
export const CLOCK_RANGE = { min: 0, max: 253_370_764_799_999 } as const;

/**
 * The largest id of a record's sequence (instances, keys, recipients, alarms, integrations,
 * backups, maintenance, outbox entries) a loaded state may carry: 2^31 - 1, what a 32-bit integer
 * id holds; far below 2^53, where `id + 1` would give the same id twice.
 */
export const MAX_ID = 2_147_483_647;
