// Reading a Prometheus text exposition (what /metrics answers) in tests.

/** The samples of one metric family in a Prometheus text exposition, by their label text. */
export function samples(exposition: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of exposition.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)$/.exec(line);
    if (match?.[1] === name) found.set(match[2] ?? "", Number(match[3]));
  }
  return found;
}
