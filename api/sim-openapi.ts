/**
 * The simulator's own OpenAPI 3.1 document (served at `GET /sim/openapi.json` when the simulator is
 * mounted; ARCHITECTURE.md "Simulator"): every `/sim` route a merchant's engineer drives the sandbox
 * with, its request body (converted from the same joi schema the route validates with), what it
 * answers, and one worked example each (the request's, and what the route answers to it:
 * api/sim-response-examples.ts); its description carries the table of the sandbox's magic
 * values (providers/sandbox-values.ts). tests/api/sim-document.test.ts proves that the document
 * names exactly the routes the simulator router serves and that every example passes its schema.
 */
import type Joi from 'joi';
import { toJsonSchema } from './openapi';
import { errorEnvelopeSchema } from './middleware/errors';
import { SIM_OPERATIONS, type SimOperation } from './schemas/simulator';
import { SIM_RESPONSE_EXAMPLES } from './sim-response-examples';
import { sandboxValuesMarkdown } from '../providers/sandbox-values';
import { SANDBOX_PAYER_WALLET } from '../providers/wallet-sends';

type JsonSchema = Record<string, unknown>;

/** `/chain/transfers/:id` -> `/sim/chain/transfers/{id}`. */
export function simTemplate(koaPath: string): string {
  return `/sim${koaPath.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

function operation(op: SimOperation): JsonSchema {
  const params = [...koaParams(op.path)].map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: op.params?.[name] ?? name,
    ...(op.example.params?.[name] ? { example: op.example.params[name] } : {}),
  }));
  for (const [name, description] of Object.entries(op.query ?? {})) {
    params.push({
      name,
      in: 'query',
      required: false,
      schema: { type: 'string' },
      description,
      ...(op.example.query?.[name] ? { example: op.example.query[name] } : {}),
    });
  }
  const out: JsonSchema = {
    operationId: op.id,
    summary: op.summary,
    description: op.description,
    tags: ['simulator'],
    parameters: params,
    responses: {
      [String(op.status)]: {
        description: op.answers,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { object: { type: 'string', const: op.object } }, required: ['object'] },
            ...(SIM_RESPONSE_EXAMPLES[op.id] ? { example: SIM_RESPONSE_EXAMPLES[op.id] } : {}),
          },
        },
      },
      400: errorResponse('The body or a parameter is invalid (`invalid_request`).'),
      404: errorResponse('No such object in the sandbox (`not_found`).'),
      409: errorResponse('The sandbox object cannot move that way (`conflict`).'),
    },
  };
  if (op.body) {
    out.requestBody = {
      required: true,
      content: { 'application/json': { schema: toJsonSchema(op.body as Joi.Schema, 'request'), example: op.example.body } },
    };
  }
  return out;
}

function koaParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
}

function errorResponse(description: string): JsonSchema {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
}

/** The document (OpenAPI 3.1) of `SIM_OPERATIONS`. */
export function buildSimOpenApi(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of SIM_OPERATIONS) {
    const template = simTemplate(op.path);
    paths[template] = { ...paths[template], [op.method]: operation(op) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payments Platform sandbox simulator',
      version: '1',
      description:
        'What the outside world does in the sandbox: chains, banks, bridges, providers and people. ' +
        'Mounted only when SIMULATOR_ENABLED=true (`npm start`, tests). No credential: the simulator is an operator surface of the sandbox, never of production.\n\n' +
        `## The sandbox payer wallet\n\n\`${SANDBOX_PAYER_WALLET}\` is a payer's wallet whose passkey the sandbox holds: \`POST /sim/wallet/sign\` signs from it ` +
        '(e.g. the `unsigned_transaction` of `pay_with_wallet` called with it as `from_address`), first minting to it what its balance lacks, ' +
        'and the payer page\'s "SANDBOX: pay from the sandbox wallet" button pays from it. Any other `from` must be a wallet registered on this sandbox ' +
        "(an account's service wallet) holding the balance.\n\n" +
        '## Sandbox values\n\nEvery magic value of the sandbox (providers/sandbox-values.ts):\n\n' +
        sandboxValuesMarkdown(),
    },
    servers: [{ url: '/' }],
    tags: [{ name: 'simulator', description: 'Sandbox-only routes (ARCHITECTURE.md "Simulator").' }],
    paths,
    components: { schemas: { ErrorEnvelope: toJsonSchema(errorEnvelopeSchema) } },
  };
}
