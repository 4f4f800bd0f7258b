// Which success status an operation answers with, where its documents allow more than one (README,
// "Success codes"; openapi/CONVENTIONS.md). The seed leaves 200 or 204 open for most writes and
// production's public clients insist on exact codes, so the reference implementation has three
// modes, chosen by `--answers` / TUSK_ANSWERS and, per request, the `Tusk-Answers` header:
//   default     the reference implementation's own codes (200 with the record; 204 on delete);
//   production  the operation's `x-production-status` (201 on the creates and the alarm update,
//               204 on integration updates and on every delete), as production answers;
//   vary        every call of an operation answers the next of its documented success codes, so a
//               client that depends on one exact code fails locally instead of in production.
import type { OpenApiDocument } from '../openapi/documents.js';
import type { OperationInfo } from '../openapi/operations.js';
import { ApiError } from '../core/errors.js';
import { mediaExamples, mediaOf, responseObject } from './examples.js';

export const ANSWER_MODES = ['default', 'production', 'vary'] as const;
export type AnswerMode = (typeof ANSWER_MODES)[number];

/** Reads the mode of a request's `Tusk-Answers` header; undefined when absent, a 400 when not a mode. */
export function answerModeOf(header: string | undefined): AnswerMode | undefined {
  if (header === undefined) return undefined;
  const mode = header.trim().toLowerCase();
  if ((ANSWER_MODES as readonly string[]).includes(mode)) return mode as AnswerMode;
  throw new ApiError(400, `Tusk-Answers: must be one of ${ANSWER_MODES.join(', ')} (header outside the contract)`, {
    field: 'Tusk-Answers',
    rule: 'enum',
  });
}

export interface AnswerOptions {
  /** The server's mode (`--answers`, `--vary-success`). */
  mode: () => AnswerMode;
}

/** How the success status of one operation's answers is chosen, where the answer is made (http/finish.ts). */
export interface SuccessStatus {
  /**
   * The status to answer with, for a handler that answered `natural` (200 with a body, 204
   * without): the implementation's own, production's, or the next documented one, in the mode the
   * request's `Tusk-Answers` header asked for (`requested`), else the server's.
   */
  status(requested: AnswerMode | undefined, natural: number): number;
  /** The documented example body of a status, for a handler that answered without a body. */
  example(status: number): string | undefined;
}

/** How `op`'s success status is chosen; undefined when the operation documents one success code only. */
export function successStatusOf(
  doc: OpenApiDocument,
  op: OperationInfo,
  options: AnswerOptions,
): SuccessStatus | undefined {
  const codes = [...op.responses.keys()]
    .filter((k) => /^2\d\d$/.test(k))
    .map(Number)
    .sort((a, b) => a - b);
  if (codes.length < 2) return undefined;
  const production =
    typeof op.raw['x-production-status'] === 'number' ? (op.raw['x-production-status'] as number) : undefined;
  // The body of a status when the handler answered without one: the documented example.
  const examples = new Map<number, string>();
  for (const code of codes) {
    const response = responseObject(doc, op, String(code));
    const media = response && mediaOf(doc, response).find(([type]) => type === 'application/json');
    const example = media && mediaExamples(doc, media[1])[0];
    if (example) examples.set(code, JSON.stringify(example.value));
  }
  let calls = 0;
  return {
    status(requested, natural) {
      const mode = requested ?? options.mode();
      if (mode === 'production') return production ?? natural;
      if (mode === 'vary') return codes[(Math.max(0, codes.indexOf(natural)) + calls++) % codes.length]!;
      return natural;
    },
    example: (status) => examples.get(status),
  };
}
