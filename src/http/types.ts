// Types of requests and responses by operation id, from the generated `operations` of a document.
export type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body the document declares for an operation's status. */
export type ResponseBody<Ops, Id extends keyof Ops, Status extends number = 200> = Ops[Id] extends {
  responses: infer R;
}
  ? Status extends keyof R
    ? JsonBody<R[Status]>
    : never
  : never;

/** The JSON request body of an operation. */
export type RequestBody<Ops, Id extends keyof Ops> = Ops[Id] extends { requestBody?: infer B }
  ? JsonBody<NonNullable<B>>
  : never;

export type QueryOf<Ops, Id extends keyof Ops> = Ops[Id] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : Record<string, never>;
export type PathOf<Ops, Id extends keyof Ops> = Ops[Id] extends { parameters: { path?: infer P } }
  ? NonNullable<P>
  : Record<string, never>;

/** The validated input of an operation, as the pipeline leaves it. */
export interface Input<Ops, Id extends keyof Ops> {
  params: PathOf<Ops, Id>;
  query: QueryOf<Ops, Id>;
  body: RequestBody<Ops, Id>;
}
