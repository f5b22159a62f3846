#!/usr/bin/env node
// The built command (npm run build in the repository, or prepack when packed): packages/cli/README.md.
// dist/sitehall.js is the CLI's sources and the plain contracts modules they use in one module
// (scripts/bundle.mjs).
import '../dist/sitehall.js';
