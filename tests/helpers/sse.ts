/** The SSE client shared by tests and the SSE bench (scripts/sse-client.ts). */
export { openStream, opened, type Frame, type StreamClient } from '../../scripts/sse-client';
