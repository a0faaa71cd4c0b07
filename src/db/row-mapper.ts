// Rows of the hot statements, built from the driver's value arrays. Drizzle maps each row of a
// select generically: per column it tells the field's kind apart (instanceof walks up the
// prototype chain), walks the field's path and, for joins, tracks table names to decide which
// left-joined table is null — ~1.5 µs for an 11-column row and ~3 µs for a 30-column join row
// here, on requests whose whole budget is tens of µs (bench/README.md). A mapper made once per
// statement knows all of that up front and does only the per-value work: Drizzle's own
// `mapFromDriverValue` of each column that converts (timestamps, booleans).
import { Column, getTableColumns, is, Table } from "drizzle-orm";

/**
 * What a hot statement selects: one table's row, chosen columns under names, or tables side by
 * side under names (a join).
 */
export type Selection = Table | Record<string, Column> | Record<string, Table>;

/** One column's place in a row: its property, and its decoder when the stored value is not the value. */
interface Field {
  key: string;
  decode: ((value: unknown) => unknown) | null;
}

function fieldsOf(columns: Record<string, Column>): Field[] {
  return Object.entries(columns).map(([key, column]) => ({
    key,
    // Text and plain numbers are stored as they are: calling the identity per value is the cost saved.
    decode:
      column.mapFromDriverValue === Column.prototype.mapFromDriverValue
        ? null
        : (value: unknown) => column.mapFromDriverValue(value),
  }));
}

function objectOf(fields: Field[], values: unknown[], offset: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const { key, decode } = fields[i]!;
    const value = values[offset + i];
    row[key] = value === null || decode === null ? value : decode(value);
  }
  return row;
}

/**
 * Turns one value array, in the column order Drizzle selects `selection` in (each table's
 * columns as declared, tables in the selection's key order), into the row Drizzle would return.
 * A table of a join whose first column (its key) is null is null, as Drizzle has a left-joined
 * table with no match.
 */
export function rowMapperOf(selection: Selection): (values: unknown[]) => unknown {
  if (is(selection, Table)) {
    const fields = fieldsOf(getTableColumns(selection));
    return (values) => objectOf(fields, values, 0);
  }
  const entries = Object.entries(selection);
  if (entries.every(([, part]) => is(part, Column))) {
    const fields = fieldsOf(selection as Record<string, Column>);
    return (values) => objectOf(fields, values, 0);
  }
  const groups = (entries as [string, Table][]).map(([name, table]) => ({
    name,
    fields: fieldsOf(getTableColumns(table)),
  }));
  return (values) => {
    const row: Record<string, unknown> = {};
    let offset = 0;
    for (const { name, fields } of groups) {
      row[name] = values[offset] === null ? null : objectOf(fields, values, offset);
      offset += fields.length;
    }
    return row;
  };
}
