// Responses whose body is produced while it is sent (a CSV export, a print sheet): the request
// frame measures these to their last byte. Streamed lists have their own mark (list-stream.ts).
import { responseMark } from "./response-mark";

const streamed = responseMark();

export const markStreamedBody = streamed.mark;
export const isStreamedBody = streamed.has;
