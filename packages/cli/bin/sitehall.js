#!/usr/bin/env node
// The built command (npm run build in the repository, or prepack when packed): packages/cli/README.md.
import '../dist/bin.js';
