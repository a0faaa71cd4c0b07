// Responses whose body is produced while it is sent (a CSV export, a print sheet): the request
// frame measures these to their last byte. Streamed lists have their own mark (list-stream.ts).
const streamed = new WeakSet<Response>();

export function markStreamedBody(response: Response): Response {
  streamed.add(response);
  return response;
}

export function isStreamedBody(response: Response): boolean {
  return streamed.has(response);
}
