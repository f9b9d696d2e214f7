#!/usr/bin/env node
// Trust-test fixture: proves a server command was started. Writes a marker file at the
// workspace root (beside .vscode/) and exits. It must never run in an untrusted workspace.
'use strict';
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

writeFileSync(
  join(__dirname, '..', 'SERVER-WAS-STARTED.marker'),
  `started at ${new Date().toISOString()} with argv ${JSON.stringify(process.argv.slice(2))}\n`,
);
process.exit(0);
