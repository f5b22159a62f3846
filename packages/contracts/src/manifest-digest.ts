/**
 * The canonical text of a deploy manifest (docs/decisions/deploys.md "Base-version deploys"): what
 * `base_digest` is the SHA-256 of, computed the same way by the CLI (which compiles this module in:
 * no zod, no dependencies) and by the server, each hashing it with its own node:crypto (contracts
 * also runs in the browser, which has no synchronous SHA-256). One line per file, `path`, a NUL,
 * the content's SHA-256 and a newline, sorted by path in UTF-16 code-unit order; paths in NFC, as
 * the server stores them. A NUL can't occur in a path the upload rules take, so no two manifests
 * share a text.
 */
export function canonicalManifest(files: Iterable<readonly [string, string]>): string {
  const lines: string[] = [];
  for (const [name, sha256] of files) lines.push(`${name.normalize('NFC')}\0${sha256}\n`);
  lines.sort();
  return lines.join('');
}
