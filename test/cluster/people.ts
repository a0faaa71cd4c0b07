// The accounts the scenarios use: one admin and 60 readers, registered through the balancer,
// each reader behind an address of its own.
import { grantAdmin } from "./admin-grant";
import { call, clientAddress, expectStatus } from "./client";

export const PASSWORD = "cluster password cluster password";

export interface Person {
  email: string;
  uuid: string;
  token: string;
  address: string;
}

export async function registerAdmin(
  base: string,
  email: string,
  env: { databaseUrl: string; dataDir: string },
): Promise<Person> {
  const address = clientAddress(0);
  const registered = await expectStatus(201, base, "POST", "/authentication/register", {
    json: { email, password: PASSWORD },
    forwardedFor: address,
  });
  await grantAdmin(email, env);
  // A session opened after the grant, so its roles are read with it.
  const session = await expectStatus(200, base, "POST", "/authentication/login", {
    json: { email, password: PASSWORD },
    forwardedFor: address,
  });
  if (!session.user.roles.includes("admin")) throw new Error(`${email} is not an admin after the grant`);
  return { email, uuid: registered.user.uuid, token: session.token, address };
}

/** Registers `count` readers, a few at a time (each registration hashes a password). */
export async function registerReaders(base: string, count: number, concurrency = 6): Promise<Person[]> {
  const readers: Person[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const email = `reader-${n}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const address = clientAddress(n + 1);
      const answer = await call(base, "POST", "/authentication/register", {
        json: { email, password: PASSWORD },
        forwardedFor: address,
      });
      if (answer.status !== 201)
        throw new Error(`register ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
      readers[n] = { email, uuid: answer.body.user.uuid, token: answer.body.token, address };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return readers;
}
