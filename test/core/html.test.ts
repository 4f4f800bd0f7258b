// HTML written with Hono's html helper (src/core/html.ts): values are escaped, and text() gives the
// string of synchronous markup and refuses asynchronous markup rather than print "[object Promise]".
import { describe, expect, it } from 'vitest';
import { html, raw, text } from '../../src/core/html.js';

describe('text(html`...`)', () => {
  it('escapes the values put in and keeps raw() and nested markup as they are', () => {
    expect(text(html`<p title="${'"a" & <b>'}">${raw('<i>x</i>')}${html`<b>${"it's"}</b>`}</p>`)).toBe(
      '<p title="&quot;a&quot; &amp; &lt;b&gt;"><i>x</i><b>it&#39;s</b></p>',
    );
  });

  it('refuses markup with an asynchronous value', () => {
    const markup = html`<p>${Promise.resolve('later')}</p>`;
    expect(() => text(markup)).toThrow('html: an asynchronous value where a string was expected');
  });
});
