/**
 * Workflow histories as ProtoJSON (the form `temporal workflow show --output json` and the SDK's
 * `historyToJSON` write): what scripts/record-histories.ts stores and
 * tests/workflows/logic/replay-stored.test.ts replays.
 *
 * The SDK's own `historyToJSON` / `historyFromJSON` (@temporalio/common/lib/proto-utils) cannot be
 * used in this install: @temporalio/common and @temporalio/proto each get their own copy of
 * protobufjs 8 (the top level holds the 7.x that @grpc/proto-loader needs), and protobufjs's
 * ProtoJSON extension refuses a message type built by the other copy ("type must be a Type"). Here
 * the extension is loaded from the copy @temporalio/proto itself resolves, so the type and the
 * converter always match, whatever the layout of node_modules.
 */
import { createRequire } from 'node:module';
import type { History } from '@temporalio/common/lib/proto-utils';

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): History | null;
}

let loaded: { historyType: unknown; protojson: ProtoJson } | null = null;

function load(): { historyType: unknown; protojson: ProtoJson } {
  if (loaded) return loaded;
  // The @temporalio/proto the SDK uses (through @temporalio/common), and the protobufjs that built its types.
  const fromCommon = createRequire(require.resolve('@temporalio/common'));
  const protoEntry = fromCommon.resolve('@temporalio/proto');
  const fromProto = createRequire(protoEntry);
  const proto = fromProto(protoEntry);
  const { patchProtobufRoot } = fromCommon('@temporalio/proto/lib/patch-protobuf-root') as {
    patchProtobufRoot(root: unknown): { lookupType(name: string): unknown };
  };
  const protojson = fromProto('protobufjs/ext/protojson') as ProtoJson;
  loaded = { historyType: patchProtobufRoot(proto).lookupType('temporal.api.history.v1.History'), protojson };
  return loaded;
}

/** `history` (as fetched from a server: `handle.fetchHistory()`) in ProtoJSON, a plain object. */
export function historyToProtoJson(history: History): unknown {
  const { historyType, protojson } = load();
  return protojson.toJson(historyType, history);
}

/** The history message of ProtoJSON `json` (what historyToProtoJson wrote), ready for `Worker.runReplayHistories`. */
export function historyFromProtoJson(json: unknown): History {
  const { historyType, protojson } = load();
  const h = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!h || !Array.isArray(h.events) || h.events.length === 0) throw new TypeError('not a workflow history (no events)');
  return h;
}
