// What a recording keeps of a secret: the redaction of `tusk proxy --record` (and of `tusk import`'s
// integration keys). One Redactor per file: each secret it meets gets a placeholder
// `<redacted:KIND:N>` (N counts the file's secrets from 1), and the same secret is the same
// placeholder everywhere in the file, so a reader (and `tusk replay`) still sees that the key a
// create answered is the key later requests carry. Secrets are:
// - the credentials of an Authorization header (HTTP Basic: the key; any other scheme: the whole
//   value), Proxy-Authorization, Cookie and Set-Cookie headers;
// - the values of fields named in SECRET_FIELDS, anywhere in a JSON body, a form body or a query
//   string (the instance key `apikey`, `password`, and the keys of the integration systems:
//   openapi/instance/logs.yaml and metrics.yaml name them);
// - the password of a URL with credentials (`postgres://user:PASSWORD@host/db`), in any text;
// - the `signature` of a signed URL (a backup's download link is a bearer credential);
// and then every secret met before, wherever it appears again (a key quoted in a later body).
import { basicCredentials } from '../core/basic-auth.js';

/**
 * Field names whose values are secrets: the instance key and password, and every key, token and
 * secret of the integration systems' configs (LogsAConfig .. MetricsEConfig).
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'apikey',
  'api_key',
  'password',
  'token',
  'private_key',
  'license_key',
  'application_secret',
  'secret_access_key',
]);

/** Headers whose whole value is a secret (Authorization is read for its key). */
const SECRET_HEADERS = new Set(['proxy-authorization', 'cookie', 'set-cookie']);

/** `scheme://user:PASSWORD@` in any text; the password stops at `@`, `/`, a quote or a space. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]*:)([^\s@/"'<>]+)(@)/gi;
/** `signature=...` of a signed URL. */
const SIGNATURE = /([?&]signature=)([^&\s"'<>#]+)/gi;
/** A placeholder this module writes. */
export const PLACEHOLDER = /^<redacted:[a-z_]+:\d+>$/;

/** Secrets shorter than this are not searched for elsewhere in a text (they would match by chance). */
const MIN_SEARCHED = 6;

export class Redactor {
  private readonly placeholders = new Map<string, string>();

  /** enabled false: every method gives its input back (`--record-secrets`). */
  constructor(readonly enabled = true) {}

  /** How many distinct secrets were met. */
  get count(): number {
    return this.placeholders.size;
  }

  /** The placeholder of `secret` (made on first sight, with the kind it was first seen as). */
  placeholder(kind: string, secret: string): string {
    if (PLACEHOLDER.test(secret)) return secret;
    let p = this.placeholders.get(secret);
    if (!p) {
      p = `<redacted:${kind.toLowerCase().replace(/[^a-z_]/g, '_')}:${this.placeholders.size + 1}>`;
      this.placeholders.set(secret, p);
    }
    return p;
  }

  /** Replaces every secret met so far wherever it appears in `text`. */
  private known(text: string): string {
    for (const [secret, p] of this.placeholders)
      if (secret.length >= MIN_SEARCHED && text.includes(secret)) text = text.split(secret).join(p);
    return text;
  }

  /** The secrets a text holds by its form alone: URL passwords and signatures. */
  private patterns(text: string): string {
    return text
      .replace(
        URL_PASSWORD,
        (_m, head: string, pw: string, at: string) => `${head}${this.placeholder('password', pw)}${at}`,
      )
      .replace(SIGNATURE, (_m, head: string, sig: string) => `${head}${this.placeholder('signature', sig)}`);
  }

  /** A header's value as recorded. */
  header(name: string, value: string): string {
    if (!this.enabled) return value;
    const lower = name.toLowerCase();
    if (lower === 'authorization') {
      const creds = basicCredentials(value);
      if (creds) {
        const key = creds.password || creds.user;
        return key ? `Basic ${this.placeholder('apikey', key)}` : value;
      }
      const [scheme, ...rest] = value.split(' ');
      return rest.length
        ? `${scheme} ${this.placeholder('authorization', rest.join(' '))}`
        : this.placeholder('authorization', value);
    }
    if (SECRET_HEADERS.has(lower)) return this.placeholder(lower.replace(/-/g, '_'), value);
    return this.known(this.patterns(value));
  }

  /** A URL as recorded: secret query parameters, URL passwords, signatures, secrets met before. */
  url(url: string): string {
    if (!this.enabled) return url;
    const q = url.indexOf('?');
    const head = q >= 0 ? url.slice(0, q) : url;
    const out = q >= 0 ? `${head}?${this.query(url.slice(q + 1))}` : head;
    return this.encodedKnown(this.known(this.patterns(out)));
  }

  /** `a=1&apikey=...`: the values of secret fields replaced (percent-encoded placeholders). */
  private query(text: string): string {
    return text
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        if (eq < 0) return pair;
        const value = decodeForm(pair.slice(eq + 1));
        return isSecretField(decodeForm(pair.slice(0, eq))) && value
          ? `${pair.slice(0, eq)}=${encodeURIComponent(this.placeholder(fieldKind(decodeForm(pair.slice(0, eq))), value))}`
          : pair;
      })
      .join('&');
  }

  /** Secrets met before, where they stand percent-encoded (a query, a form body). */
  private encodedKnown(text: string): string {
    for (const [secret, p] of this.placeholders) {
      if (secret.length < MIN_SEARCHED) continue;
      for (const encoded of new Set([
        encodeURIComponent(secret),
        new URLSearchParams({ x: secret }).toString().slice(2),
      ]))
        if (encoded !== secret && text.includes(encoded)) text = text.split(encoded).join(encodeURIComponent(p));
    }
    return text;
  }

  /**
   * A body as recorded: JSON and form bodies are read for their secret fields (the text keeps its
   * form: only the secrets' characters change); any body for URL passwords, signatures and the
   * secrets met before.
   */
  body(text: string, contentType: string | undefined): string {
    if (!this.enabled || !text) return text;
    const type = (contentType ?? '').toLowerCase();
    if (type.includes('x-www-form-urlencoded')) return this.encodedKnown(this.known(this.patterns(this.query(text))));
    if (type.includes('json') || /^\s*[[{]/.test(text)) {
      try {
        this.collect(JSON.parse(text) as unknown);
      } catch {
        /* not JSON after all: the patterns below still apply */
      }
    }
    return this.known(this.patterns(this.jsonStrings(text)));
  }

  /** A JSON value with its secrets replaced (for what is built, not recorded: `tusk import`'s integration keys). */
  value<T>(value: T): T {
    if (!this.enabled) return value;
    this.collect(value);
    return JSON.parse(this.body(JSON.stringify(value), 'application/json')) as T;
  }

  /** Meets the secrets of a parsed JSON value (fields named as secrets, at any depth). */
  private collect(value: unknown, depth = 0): void {
    if (depth > 64 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) this.collect(v, depth + 1);
      return;
    }
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (isSecretField(k) && typeof v === 'string' && v) this.placeholder(fieldKind(k), v);
      else if (isSecretField(k) && typeof v === 'number') this.placeholder(fieldKind(k), String(v));
      else this.collect(v, depth + 1);
    }
  }

  /** Replaces every secret met so far where it stands as a whole JSON string (its escaped form included). */
  private jsonStrings(text: string): string {
    for (const [secret, p] of this.placeholders) {
      const quoted = JSON.stringify(secret);
      if (text.includes(quoted)) text = text.split(quoted).join(JSON.stringify(p));
    }
    return text;
  }
}

/** Whether a field's value is a secret: a name of SECRET_FIELDS, case and `-` aside. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase().replace(/-/g, '_'));
}

const fieldKind = (name: string) => name.toLowerCase().replace(/-/g, '_');

/** A form or query component decoded (`+` is a space); the text itself when it is not valid percent-encoding. */
function decodeForm(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
