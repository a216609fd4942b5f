/**
 * Server-Sent Events framing (spec 6 stream; WHATWG HTML "event stream" format). Pure.
 * An event frame is `id:`, `event:` and one `data:` line (compact JSON never contains a raw
 * newline), ended by a blank line. Comment frames (`: text`) carry heartbeats.
 */

/** One event frame: `id` is the `evt_` id, `event` the event type, `json` the serialized envelope. */
export function eventFrame(id: string, event: string, json: string): string {
  return `id: ${oneLine(id)}\nevent: ${oneLine(event)}\ndata: ${json.replace(/\r\n|\r|\n/g, '\ndata: ')}\n\n`;
}

/** A comment frame (ignored by clients; keeps proxies and idle timers from closing the stream). */
export function commentFrame(text: string): string {
  return `: ${oneLine(text)}\n\n`;
}

/** Client reconnection delay hint, milliseconds. */
export function retryFrame(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]/g, ' ');
}
