#!/usr/bin/env node
// The built command (npm run build in the repository, or prepack when packed): packages/cli/README.md.
// dist/ holds the CLI's sources and the plain contracts modules they use, by their places in packages/.
import '../dist/cli/src/bin.js';
