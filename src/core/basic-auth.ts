// HTTP Basic credentials as Tusk reads them everywhere (the interfaces' authentication, the controls'
// keys and scopes, the proxy's check of a request): the key is the password, or, where the reader
// takes it there too (the instance interface, the controls), the user name.

/** Where a reader takes the key from: the password only (the customer interface), or the password else the user. */
export type KeyField = 'password' | 'password-or-user';

/** An Authorization header read as HTTP Basic, or why it is not. */
export function parseBasic(header: string): { user: string; password: string } | 'not basic' | 'no colon' {
  const m = /^Basic[ ]+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return 'not basic';
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'no colon';
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** HTTP Basic credentials; undefined when the header is absent or malformed. */
export function basicCredentials(header: string | null | undefined): { user: string; password: string } | undefined {
  const parsed = header ? parseBasic(header) : undefined;
  return typeof parsed === 'object' ? parsed : undefined;
}

/** The key an Authorization header carries, '' for none. */
export function keyOfHeader(header: string | null | undefined, field: KeyField = 'password-or-user'): string {
  const creds = basicCredentials(header);
  return (creds && (creds.password || (field === 'password-or-user' ? creds.user : ''))) || '';
}
