// Validates glTF files with the Khronos glTF-Validator: node validate.mjs FILE...
// Prints one line per file with its error/warning/info/hint counts and every error and warning;
// exits 1 when any file has an error or a warning.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

let bad = 0;
for (const file of process.argv.slice(2)) {
  const data = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) => readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const i = report.issues;
  console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints`);
  for (const m of i.messages) {
    if (m.severity <= 1) console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  }
  if (i.numErrors > 0 || i.numWarnings > 0) bad++;
}
process.exit(bad ? 1 : 0);
