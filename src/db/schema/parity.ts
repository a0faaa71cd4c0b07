// Compile-time proof that both dialects infer the same rows: repositories are type-checked
// against one schema (see "#db" in package.json) and run against either.
import type * as pg from "./pg";
import type * as sqlite from "./sqlite";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type TableNames = keyof sqlite.Tables & keyof pg.Tables;

type SameRows = {
  [K in TableNames]: Equal<sqlite.Tables[K]["$inferSelect"], pg.Tables[K]["$inferSelect"]>;
}[TableNames];
type SameInserts = {
  [K in TableNames]: Equal<sqlite.Tables[K]["$inferInsert"], pg.Tables[K]["$inferInsert"]>;
}[TableNames];
type SameTableNames = Equal<keyof sqlite.Tables, keyof pg.Tables>;

export type SchemaParity = [Expect<SameRows>, Expect<SameInserts>, Expect<SameTableNames>];
