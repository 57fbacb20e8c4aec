/**
 * Names of the tests a test run reports as failed, read from the report formats of the common runners:
 * Go (`--- FAIL: TestX`), pytest (`FAILED path::test`), Jest/Vitest (`FAIL  file > suite > test`, `✕ name`,
 * `× name`, `● suite › test`), cargo (`test a::b ... FAILED`), node:test (`✖ name`), JUnit/Gradle
 * (`ClassTest > method() FAILED`), RSpec (`rspec ./spec/x_spec.rb:12`), Maven surefire (`Class.method`),
 * mocha (`1) suite name:`), ScalaTest (`- name *** FAILED ***`), GoogleTest (`[  FAILED  ] Suite.Test`), CTest
 * (`15 - test_png16 (Failed)`), XCTest (`Test Case '-[M.C testX]' failed`), Julia (`name: Test Failed at`), TAP
 * (`not ok 3 - name`: prove, bats), Python unittest (`FAIL: test_x (mod.Class)`), Automake (`FAIL: test_watch`), clojure.test (`FAIL in (name)`),
 * Minitest (`FooTest#test_bar [file:12]`), elm-test (`✗ name`), Dart (`00:01 +3 -1: name [E]`), Erlang Common
 * Test (`%%% suite ==> case: FAILED`), Expecto (`[hh:mm:ss ERR] list.test failed in …`), PDK (`failed: rspec: ./spec/x_spec.rb:9:`), Dafny (a method whose
 * verification timed out: `Verification of 'Bank.Transfer' timed out`), and for runners not listed a line that is
 * an identifier-like test name (`a_suite:case`, `pkg.Class.method`, `file::name`) followed by FAILED. At most
 * `max`, in order of appearance, without duplicates.
 */
export function failedTestNames(output: string, max = 3): string[] {
  const out: string[] = [];
  const add = (name: string | undefined) => {
    const n = name?.trim().replace(/\s+\(\d+(\.\d+)?\s*m?s\)$/, '');
    if (n && n.length >= 3 && n.length <= 160 && !out.includes(n)) out.push(n);
  };
  for (const line of output.split('\n')) {
    const l = line.replace(/\u001b\[[0-9;]*m/g, '');
    let m: RegExpExecArray | null;
    if ((m = /^\s*--- FAIL: (\S+)/.exec(l))) add(m[1]);
    else if ((m = /^FAILED (\S+::\S+)/.exec(l))) add(m[1]);
    else if ((m = /^\s*FAIL\s+(\S+\.(?:[cm]?[jt]sx?)\s+>\s+.+)$/.exec(l))) add(m[1]);
    else if ((m = /^\s*(?:✕|×|✖)\s+(.+?)\s*$/.exec(l))) add(m[1]);
    else if ((m = /^\s*(?:✗|✘)\s+\d+\s+\[[^\]]+\]\s+›\s+(.+?)\s*$/.exec(l))) add(m[1]); // Playwright (`✘ 3 [chromium] › file:19:3 › name`)
    else if ((m = /^\s*●\s+(.+›.+)$/.exec(l))) add(m[1]);
    else if ((m = /^test (\S+) \.\.\. FAILED/.exec(l))) add(m[1]);
    else if ((m = /^\s*(\w[\w.]*Test\w*) > (\S+?\(\)) FAILED/.exec(l))) add(`${m[1]} > ${m[2]}`);
    else if ((m = /^rspec (\.\/spec\/\S+:\d+)/.exec(l))) add(m[1]);
    else if ((m = /^\[ERROR\]\s+(\w[\w.]*\.\w+)(?::\d+)?\s/.exec(l)) && /Test|IT\b/.test(m[1]!)) add(m[1]);
    else if ((m = /^\s*Failed (\w[\w.`+<>,-]*\.\w+(?:\(.*\))?) \[\d+(?:\.\d+)? ?(?:ms|s)\]/.exec(l))) add(m[1]); // dotnet test (vstest)
    else if ((m = /^\s*\d+\) test (.+?) \(([\w.]+)\)\s*$/.exec(l))) add(`${m[2]}: ${m[1]}`); // ExUnit
    else if ((m = /^\d+\) ([\w\\]+::\w+)/.exec(l))) add(m[1]); // PHPUnit
    else if ((m = /^(?:\[info\]\s+)?-\s+(.+?)\s+\*\*\* FAILED \*\*\*/.exec(l))) add(m[1]); // ScalaTest
    else if ((m = /^\[\s+FAILED\s+\]\s+(\w[\w./]*\.\w+)/.exec(l))) add(m[1]); // GoogleTest
    else if ((m = /^\s*\d+ - (\S+) \((?:Failed|SEGFAULT|Timeout|Subprocess aborted|Exception)\)/.exec(l))) add(m[1]); // CTest
    else if ((m = /^Test Case '-?\[?([\w. ]+?)\]?' failed/.exec(l))) add(m[1]); // XCTest
    else if ((m = /^(.+?): Test Failed at /.exec(l))) add(m[1]); // Julia Test
    else if ((m = /^\s*not ok \d+\s*-?\s*(.+?)\s*(?:#.*)?$/.exec(l)) && !/#\s*(TODO|SKIP)/i.test(l)) add(m[1]); // TAP (prove, bats, node-tap)
    else if ((m = /^failed: rspec: (\.\/spec\/\S+?:\d+):/.exec(l))) add(m[1]); // PDK (`pdk test unit`'s rspec-puppet report)
    else if ((m = /^\S+\(\d+,\d+\): Error: Verification of '([^']+)' (?:timed out|ran out of resources)/.exec(l))) add(m[1]); // Dafny
    else if ((m = /^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)/.exec(l))) add(`${m[2]}.${m[1]}`); // Python unittest
    else if ((m = /^(?:FAIL|ERROR|XPASS): ([\w./-]+)(?:\s|$)/.exec(l))) add(m[1]); // Automake's test driver (`make check`, dh_auto_test: `FAIL: test_watch`)
    else if ((m = /^(?:FAIL|ERROR) in \(([^)]+)\)/.exec(l))) add(m[1]); // clojure.test
    else if ((m = /^\s*([A-Z]\w*#test_\w+) \[/.exec(l))) add(m[1]); // Minitest
    else if ((m = /^\s*(?:✗|✘)\s+(.+?)\s*$/.exec(l))) add(m[1]); // elm-test, ward, others
    else if ((m = /^\d+:\d+ \+\d+(?: ~\d+)? -\d+: (.+?) \[E\]\s*$/.exec(l))) add(m[1]); // Dart test
    else if ((m = /^%%% (\w+) ==> (\w+): FAILED/.exec(l))) add(`${m[1]}:${m[2]}`); // Erlang Common Test
    else if ((m = /^\[[\d:.]+ ERR\] (.+?) (?:failed|errored) in \d[\d:.]*\.?\s*$/.exec(l))) add(m[1]); // Expecto (`[10:42:17 ERR] suite.test failed in 00:00:00.52.`)
    else if ((m = /^[\s%#*>|-]*((?:[\w$-]+(?:::|==>|\.|:|#|\/| > | › ))+[\w$-]+)(?:\(\))?:?\s+\.*\s*(?:FAILED|FAIL)\s*$/.exec(l))) add(m[1]!.replace(/\s*==>\s*/, ':')); // other runners
    if (out.length >= max) break;
  }
  return out;
}
