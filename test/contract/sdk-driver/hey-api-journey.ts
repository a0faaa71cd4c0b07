// A client's journey written only against the SDK that @hey-api/openapi-ts generates from
// GET /v3/api-docs (its bundled Fetch API client), configured the way hey-api documents it: one
// `auth` callback that returns the token, on the client (`createClient({ baseUrl, auth })` or
// `client.setConfig({ auth })`); the generated SDK functions decide from the document's security
// requirements how the token goes out. test/contract/hey-api.test.ts generates `./api/` next to a
// copy of this file in a temp folder, type-checks both with tsc, then runs this against the real
// server. The project's own typecheck leaves this folder out (tsconfig.json): `./api` exists only
// in that generated copy.
import { createClient, createConfig } from "./api/client";
import { client } from "./api/client.gen";
import {
  createActivationQrCode,
  createBook,
  getMe,
  listBooks,
  listMyBooks,
  login,
  logout,
  redeemActivationQrCode,
  register,
} from "./api/sdk.gen";
import type {
  Activation,
  ActivationQrCode,
  Book,
  LogoutResult,
  MyBook,
  Problem,
  Session,
  User,
} from "./api/types.gen";

export interface Fixtures {
  adminEmail: string;
  readerEmail: string;
  password: string;
  /** The operator's step, outside the API: `bun run admin grant <email>`. */
  grantAdmin(email: string): Promise<void>;
}

export interface Journey {
  /**
   * One line per call, in order: `<operationId>: <status> <scheme of the Authorization header
   * the SDK sent, or "none">`, and the problem's `code` when the answer was a problem. The
   * journey stops after the first call whose answer it cannot go on from.
   */
  steps: string[];
  admin?: Session;
  reader?: Session;
  book?: Book;
  books?: Book[];
  qrCode?: ActivationQrCode;
  activation?: Activation;
  myBooks?: MyBook[];
  logout?: LogoutResult;
  afterLogout?: User | Problem;
}

/** What an SDK function resolves to (no request or response when fetch itself failed). */
interface Result<T> {
  data?: T;
  error?: unknown;
  request?: Request;
  response?: Response;
}

class Stop extends Error {}

export async function runJourney(baseUrl: string, fixtures: Fixtures): Promise<Journey> {
  const journey: Journey = { steps: [] };

  /** Records the call; returns its data, or stops the journey when there is none to go on with. */
  const step = <T>(name: string, result: Result<T>, expected: number): T => {
    const authorization = result.request?.headers.get("Authorization");
    const scheme = authorization ? authorization.split(" ")[0] : "none";
    const problem = result.error as Partial<Problem> | undefined;
    const status = result.response?.status ?? `no response (${String(result.error)})`;
    journey.steps.push(`${name}: ${status} ${scheme}${problem?.code ? ` ${problem.code}` : ""}`);
    if (status !== expected || result.data === undefined) throw new Stop(name);
    return result.data;
  };

  // The shared client of the generated SDK, set up once as hey-api's guide shows; calls that
  // declare no security (register, log in) send no credentials whatever `auth` returns.
  let readerToken: string | undefined;
  client.setConfig({ baseUrl, auth: () => readerToken });

  try {
    // The admin registers, is granted admin by the operator, and logs in.
    step(
      "register",
      await register({ body: { email: fixtures.adminEmail, password: fixtures.password, firstName: "Ada" } }),
      201,
    );
    await fixtures.grantAdmin(fixtures.adminEmail);
    journey.admin = step(
      "login",
      await login({ body: { email: fixtures.adminEmail, password: fixtures.password } }),
      200,
    );
    // A client of its own for the admin, with its own single auth callback.
    const adminToken = journey.admin.token;
    const admin = createClient(createConfig({ baseUrl, auth: () => adminToken }));

    // A reader registers, then logs in again.
    step(
      "register",
      await register({ body: { email: fixtures.readerEmail, password: fixtures.password } }),
      201,
    );
    journey.reader = step(
      "login",
      await login({ body: { email: fixtures.readerEmail, password: fixtures.password } }),
      200,
    );
    readerToken = journey.reader.token;

    // The admin publishes a book and a QR code for it.
    journey.book = step(
      "createBook",
      await createBook({
        client: admin,
        body: {
          title: "The Hey API Book",
          author: "Generated Client",
          language: "en",
          isbn: "978-0-306-40615-7",
        },
      }),
      201,
    );
    const bookId = journey.book.id;

    // The reader sees it.
    journey.books = step("listBooks", await listBooks(), 200);

    journey.qrCode = step(
      "createActivationQrCode",
      await createActivationQrCode({ client: admin, body: { bookId, maxActivations: 1, label: "Hey API" } }),
      201,
    );

    // The reader redeems the code as typed from paper (lower case, no dashes) and finds the book.
    journey.activation = step(
      "redeemActivationQrCode",
      await redeemActivationQrCode({ body: { code: journey.qrCode.code.replaceAll("-", "").toLowerCase() } }),
      201,
    );
    journey.myBooks = step("listMyBooks", await listMyBooks(), 200);

    // Logging out ends the session: the same token is refused afterwards.
    journey.logout = step("logout", await logout({ body: {} }), 200);
    const me = await getMe();
    journey.afterLogout = (me.data ?? me.error) as User | Problem;
    step("getMe", { ...me, data: me.error }, 401);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return journey;
}
