/**
 * JUnit XML as CI servers read it (Jenkins, GitLab, GitHub test reporters): the Ant task's
 * format, whose published XSD (`test/fixtures/ci/junit.xsd`) is stricter than most readers and is
 * what the tests validate against. So every attribute the XSD requires is written, and each
 * suite carries its (empty) `properties`, `system-out` and `system-err`. Pure.
 */

/** One test case: passed, failed (with why) or skipped (with why). */
export interface JunitCase {
  name: string;
  classname: string;
  /** Seconds; 0 when the work was not timed (a judgment read back from its record). */
  time?: number;
  failure?: { message: string; type: string; body: string };
  skipped?: string;
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
  properties?: Record<string, string>;
}

/** Characters XML 1.0 cannot hold at all (not even escaped): controls but tab and the line breaks, lone surrogates, U+FFFE/U+FFFF. */
// eslint-disable-next-line no-control-regex -- control characters are what this replaces
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text content: markup characters escaped, impossible characters shown as U+FFFD. */
export function xmlText(s: string): string {
  return s.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value: also quotes, and line breaks and tabs as references (a parser would fold them into spaces). */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** `2026-12-06T23:59:01`: the XSD's timestamp has no zone and no fraction (it is UTC here). */
export function junitTimestamp(d: Date): string {
  return d.toISOString().slice(0, 19);
}

const seconds = (t: number | undefined): string => (t === undefined || !Number.isFinite(t) || t < 0 ? '0' : t.toFixed(3));

/** The XML document of some suites, one `<testsuites>` root. */
export function renderJunit(suites: readonly JunitSuite[], o: { timestamp: Date; hostname: string }): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>'];
  suites.forEach((s, id) => {
    const failures = s.cases.filter((c) => c.failure).length;
    const skipped = s.cases.filter((c) => !c.failure && c.skipped !== undefined).length;
    const time = s.cases.reduce((t, c) => t + (c.time ?? 0), 0);
    lines.push(
      `  <testsuite package="agent-seer" id="${id}" name="${xmlAttr(s.name || '(unnamed)')}" timestamp="${junitTimestamp(o.timestamp)}" hostname="${xmlAttr(o.hostname || 'localhost')}" tests="${s.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}">`,
    );
    const props = Object.entries(s.properties ?? {});
    if (props.length) {
      lines.push('    <properties>');
      for (const [k, v] of props) lines.push(`      <property name="${xmlAttr(k)}" value="${xmlAttr(v)}"/>`);
      lines.push('    </properties>');
    } else lines.push('    <properties/>');
    for (const c of s.cases) {
      const open = `    <testcase name="${xmlAttr(c.name || '(unnamed)')}" classname="${xmlAttr(c.classname || '(unnamed)')}" time="${seconds(c.time)}"`;
      if (c.failure) {
        lines.push(`${open}>`);
        lines.push(`      <failure message="${xmlAttr(c.failure.message)}" type="${xmlAttr(c.failure.type)}">${xmlText(c.failure.body)}</failure>`);
        lines.push('    </testcase>');
      } else if (c.skipped !== undefined) {
        lines.push(`${open}>`, `      <skipped message="${xmlAttr(c.skipped)}"/>`, '    </testcase>');
      } else lines.push(`${open}/>`);
    }
    lines.push('    <system-out/>', '    <system-err/>', '  </testsuite>');
  });
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
