import { FILE_DIFF_MAX_BYTES, format, formatBytes, messages } from '@sitehall/contracts';
import { Alert, Spin } from 'antd';
import { type StructuredPatch, structuredPatch } from 'diff';
import { useMemo } from 'react';
import { useAdminFileDiff } from '../../../api/admin';
import { errorMessage } from '../../../api/client';

const m = messages.review.fileDiff;

/** Lines of context around each change, as `git diff` shows. */
const CONTEXT_LINES = 3;
/** jsdiff gives up after this long (a few hundred KB with little in common) rather than freeze the tab. */
const DIFF_TIMEOUT_MS = 1500;
/** A minified line is cut for display; the change is still marked. */
const LINE_CHARS = 2000;

type LineKind = 'added' | 'removed' | 'context';

interface DiffLine {
  kind: LineKind;
  old: number | null;
  new: number | null;
  text: string;
}

const SIGN: Record<LineKind, string> = { added: '+', removed: '-', context: ' ' };

/** The hunks' lines with both line numbers ("\ No newline at end of file" markers dropped). */
function linesOf(patch: StructuredPatch): DiffLine[][] {
  return patch.hunks.map((hunk) => {
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    const out: DiffLine[] = [];
    for (const line of hunk.lines) {
      const sign = line[0];
      const raw = line.slice(1);
      const text = raw.length > LINE_CHARS ? `${raw.slice(0, LINE_CHARS)}…` : raw;
      if (sign === '+') out.push({ kind: 'added', old: null, new: newLine++, text });
      else if (sign === '-') out.push({ kind: 'removed', old: oldLine++, new: null, text });
      else if (sign === ' ') out.push({ kind: 'context', old: oldLine++, new: newLine++, text });
    }
    return out;
  });
}

/** The line diff of one file of the version diff, loaded when the reviewer opens it. */
export function FileLineDiff({
  projectId,
  path,
  versions,
}: {
  projectId: number;
  path: string;
  /** "v1→v2": the pair of versions, so a new upload asks again. */
  versions: string;
}) {
  const query = useAdminFileDiff(projectId, path, versions);
  const hunks = useMemo(() => {
    const data = query.data;
    if (!data || data.too_large) return null;
    const patch = structuredPatch(
      path,
      path,
      data.old_text ?? '',
      data.new_text ?? '',
      undefined,
      undefined,
      {
        context: CONTEXT_LINES,
        timeout: DIFF_TIMEOUT_MS,
        stripTrailingCr: true,
      },
    );
    return patch ? linesOf(patch) : 'too-complex';
  }, [query.data, path]);

  if (query.isPending) return <Spin size="small" />;
  if (query.isError) {
    return <Alert type="warning" showIcon title={m.failed} description={errorMessage(query.error)} />;
  }
  if (query.data.too_large) {
    return (
      <Alert type="info" showIcon title={format(m.tooLarge, { size: formatBytes(FILE_DIFF_MAX_BYTES) })} />
    );
  }
  if (hunks === 'too-complex') return <Alert type="info" showIcon title={m.tooComplex} />;
  if (!hunks || hunks.length === 0) return <Alert type="info" showIcon title={m.identical} />;
  return (
    <figure className="line-diff" aria-label={`${path} 逐行差异`}>
      {hunks.map((lines) => (
        <pre key={`${lines[0]?.old}-${lines[0]?.new}`} className="line-diff__hunk">
          {lines.map((line) => (
            <div
              key={`${line.kind}-${line.old ?? ''}-${line.new ?? ''}`}
              className={`line-diff__line line-diff__line--${line.kind}`}
            >
              <span className="line-diff__number" aria-hidden>
                {line.old ?? ''}
              </span>
              <span className="line-diff__number" aria-hidden>
                {line.new ?? ''}
              </span>
              <span className="line-diff__sign">{SIGN[line.kind]}</span>
              <code>{line.text}</code>
            </div>
          ))}
        </pre>
      ))}
    </figure>
  );
}
