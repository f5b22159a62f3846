/** The deployment_files table: the file list of each deployment. */
import type { DB } from '../db/database.js';

export interface NewDeploymentFile {
  path: string;
  size: number;
  mimeType: string;
  extension: string;
  sha256: string;
  downloadOnly: boolean;
}

/** Rows per insert statement. */
const INSERT_CHUNK = 200;

export async function insertMany(trx: DB, deploymentId: number, files: readonly NewDeploymentFile[]) {
  for (let i = 0; i < files.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('deployment_files')
      .values(
        files.slice(i, i + INSERT_CHUNK).map((f) => ({
          deployment_id: deploymentId,
          path: f.path,
          size: f.size,
          mime_type: f.mimeType,
          extension: f.extension,
          sha256: f.sha256,
          download_only: f.downloadOnly ? 1 : 0,
        })),
      )
      .execute();
  }
}

/** What serving needs of each file of a deployment. */
export function servingRows(db: DB, deploymentId: number) {
  return db
    .selectFrom('deployment_files')
    .select(['path', 'size', 'mime_type', 'sha256'])
    .where('deployment_id', '=', deploymentId)
    .execute();
}

/** Every blob hash any deployment refers to, each once. */
export async function distinctHashes(db: DB): Promise<string[]> {
  const rows = await db.selectFrom('deployment_files').select('sha256').distinct().execute();
  return rows.map((r) => r.sha256);
}
