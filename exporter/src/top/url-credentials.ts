// `jobio top` sources behind basic auth (a Prometheus behind an authenticating proxy, jobio exporters
// with basic_auth_users) are given as http://user:password@host. fetch() refuses URLs that carry
// credentials, so they travel as an Authorization header instead, and every URL jobio top prints
// shows the password as *** (it would otherwise land in terminals, logs and screenshots).

export interface Endpoint {
  /** The URL without credentials, for fetch(). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The request to make for `text` (a URL that may carry user:password@). */
export function endpoint(text: string): Endpoint {
  const url = new URL(text);
  if (url.username === '' && url.password === '') return { url: text, headers: {} };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { url: url.toString(), headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` } };
}

/** `text` as it may be printed: the password, if any, replaced by ***. */
export function shownUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  if (url.password === '') return text;
  url.password = '***';
  return url.toString();
}
