/**
 * The custom search attributes of the payments workflows (Temporal visibility), named once for both
 * sides: the client sets `AccountId` and `RequestId` at start (temporal/client.ts), the workflows
 * upsert `Parked` (workflows/convention.ts parkForOperator), and the dev tooling registers all three
 * (temporal/dev/servers.ts). A cluster must have them registered before a worker of this build runs.
 * The keys are plain `{ name, type }` objects (the SDK's SearchAttributeKey shape), so this module
 * needs no import.
 */
/** Keyword: the account the object belongs to (`acct_...`), set at start. */
export const SEARCH_ATTRIBUTE_ACCOUNT = 'AccountId';
/** Keyword: the id (`req_...`) of the API request that started the workflow, set at start when there is one. */
export const SEARCH_ATTRIBUTE_REQUEST = 'RequestId';
/** Bool: true while the workflow is parked for an operator (parkForOperator), false once resumed. */
export const SEARCH_ATTRIBUTE_PARKED = 'Parked';

/** Typed key of AccountId (Keyword). */
export const ACCOUNT_KEY = Object.freeze({ name: SEARCH_ATTRIBUTE_ACCOUNT, type: 'KEYWORD' as const });
/** Typed key of RequestId (Keyword). */
export const REQUEST_KEY = Object.freeze({ name: SEARCH_ATTRIBUTE_REQUEST, type: 'KEYWORD' as const });
/** Typed key of Parked (Bool). */
export const PARKED_KEY = Object.freeze({ name: SEARCH_ATTRIBUTE_PARKED, type: 'BOOL' as const });

/** Memo key holding the starting request's id (same value as RequestId; readable without search attributes). */
export const MEMO_REQUEST_ID = 'request_id';
