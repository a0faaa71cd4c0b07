// What the cluster test found: each check passes or fails with one line, each figure is printed
// as it is measured, and the summary says which checks failed and why.

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
}

export class Report {
  readonly checks: CheckResult[] = [];

  /** Records a check and prints it at once, so a run cut short still shows what it saw. */
  check(name: string, ok: boolean, detail: string): boolean {
    this.checks.push({ name, ok, detail });
    console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${detail}`);
    return ok;
  }

  figure(name: string, value: string): void {
    console.log(`     ${name}: ${value}`);
  }

  section(title: string): void {
    console.log(`\n== ${title}`);
  }

  get failed(): CheckResult[] {
    return this.checks.filter((check) => !check.ok);
  }

  summary(): void {
    const failed = this.failed;
    console.log("");
    for (const check of failed) console.log(`cluster: failed: ${check.name}: ${check.detail}`);
    console.log(`cluster: ${this.checks.length - failed.length} checks passed, ${failed.length} failed`);
  }
}

/** "3×200 1×502": how often each value occurred, in order. */
export function tally(values: (string | number)[]): string {
  const counts = new Map<string | number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => String(a).localeCompare(String(b)))
    .map(([value, count]) => `${count}×${value}`)
    .join(" ");
}
