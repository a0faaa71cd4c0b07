// The URLs a CLI prints (cli-targets.ts): the password never, the rest as given.
import { describe, expect, test } from "bun:test";
import { maskedUrl, urlHasPassword, urlPasswords, urlWithoutPassword } from "../../src/lib/masked-url";

describe("maskedUrl", () => {
  test("the password is ***; user, host, port, database and other parameters stay", () => {
    expect(maskedUrl("postgres://bookdist:s3cret@db:5432/books?sslmode=require")).toBe(
      "postgres://bookdist:***@db:5432/books?sslmode=require",
    );
    expect(maskedUrl("mysql://root:pw@127.0.0.1:3306/shop")).toBe("mysql://root:***@127.0.0.1:3306/shop");
  });

  test("a URL without a password is shown as it is", () => {
    expect(maskedUrl("mysql://root@127.0.0.1:3306/shop")).toBe("mysql://root@127.0.0.1:3306/shop");
    expect(maskedUrl("https://s3.example.com")).toBe("https://s3.example.com/");
  });

  test("a password with @ or : or percent-escapes, or in a query parameter, is hidden too", () => {
    for (const url of [
      "postgres://u:p@ss:w@rd@h/db",
      "postgres://u:p%40ss@h/db",
      "postgres://:only-a-password@h/db",
      "postgres://u@h/db?password=p%40ss&sslmode=require",
      "postgres://u@h/db?sslpassword=p%40ss",
    ]) {
      const masked = maskedUrl(url);
      expect(masked).not.toContain("p@ss");
      expect(masked).not.toContain("p%40ss");
      expect(masked).not.toContain("only-a-password");
      expect(masked).toContain("***");
    }
  });

  test("a URL that does not parse is not shown at all", () => {
    expect(maskedUrl("postgres://u:se cret@[bad/db")).toBe("postgres URL that does not parse (not shown)");
  });
});

describe("urlWithoutPassword", () => {
  test("drops the password and password parameters, for a command to copy", () => {
    expect(urlWithoutPassword("postgres://bookdist:s3cret@db:5432/books?password=x&sslmode=require")).toBe(
      "postgres://bookdist@db:5432/books?sslmode=require",
    );
    expect(urlHasPassword("postgres://bookdist:s3cret@db:5432/books")).toBe(true);
    expect(urlHasPassword("postgres://bookdist@db:5432/books?sslmode=require")).toBe(false);
    expect(urlPasswords("postgres://u:p%40ss@h/db")).toEqual(["p%40ss", "p@ss"]);
  });
});
