// HTML and XML written with Hono's html helper: every value put into html`...` is escaped (& < > " '),
// a nested html`...` or raw() is kept as it is, arrays are joined. The pages and reports of Tusk have
// no asynchronous parts, so `text()` gives the string.
import { html, raw } from 'hono/html';

export { html, raw };

/** The string an html`...` of synchronous values makes. */
export function text(markup: ReturnType<typeof html>): string {
  if (markup instanceof Promise) throw new Error('html: an asynchronous value where a string was expected');
  return String(markup);
}
