// A mark a response carries by its identity (a WeakSet: nothing is added to the response, and a
// response gone is forgotten), set where the response is made and read by the request frame.

export interface ResponseMark {
  /** Marks `response` and gives it back. */
  mark(response: Response): Response;
  has(response: Response): boolean;
}

export function responseMark(): ResponseMark {
  const marked = new WeakSet<Response>();
  return {
    mark: (response) => {
      marked.add(response);
      return response;
    },
    has: (response) => marked.has(response),
  };
}
