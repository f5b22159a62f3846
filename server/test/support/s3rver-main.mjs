// s3rver in its own process (started by s3rver.ts and bench/s3-stand.mjs): node
// --openssl-legacy-provider s3rver-main.mjs DIRECTORY BUCKET [PORT]. Prints "PORT <n>" once
// listening; stops on SIGTERM or when stdin closes (the parent went away). Without PORT it takes a
// free one; a stand restarting it after a crash passes the port it had. The legacy provider is for s3rver's ListObjectsV2 continuation tokens, which
// it encrypts with DES: without it every listing longer than one page fails with a 500.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import S3rver from 's3rver';

// s3rver's file store (3.7) writes an object through a write stream nobody listens to for errors,
// after making its folder; a delete of another key in the same folder removes the folder once it
// looks empty. When the removal lands between the two, the open fails with ENOENT, the stream's
// 'error' has no listener, and the whole server exits: what the chaos run's stand did under
// concurrent puts and deletes (docs/decisions/faults.md "The chaos run's S3 stand"). Here an
// object (and a part of a multipart upload) is written to a file of its own first, with every
// stream's error handled (in `.stand-parts` under the root, which no bucket's listing walks), and
// put in place under the one lock that deletes and copies take too: a put lands whole or fails
// with an error the client is told, never taking the server down.
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js');
let queue = Promise.resolve();
/** Runs `fn` once the folder changes queued before it have ended (one at a time). */
function locked(fn) {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}
let partFiles = 0;
/** Writes `content` (a stream or a Buffer) to `file`: its size and MD5. */
async function writeContent(content, file) {
  const md5 = crypto.createHash('md5');
  let size = 0;
  const count = new Transform({
    transform(chunk, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  try {
    await pipeline(Buffer.isBuffer(content) ? [content] : content, count, fs.createWriteStream(file));
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    throw error;
  }
  return { size, md5: md5.digest('hex') };
}
FilesystemStore.prototype.putObject = async function putObject(object) {
  const target = this.getResourcePath(object.bucket, object.key, 'object');
  const part = path.join(this.rootDirectory, '.stand-parts', `${process.pid}-${++partFiles}`);
  const { size, md5 } = await writeContent(object.content, part);
  try {
    await locked(async () => {
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(part, target);
      await this.putMetadata(object.bucket, object.key, object.metadata, md5);
    });
  } finally {
    await fs.promises.rm(part, { force: true });
  }
  return { size, md5 };
};
FilesystemStore.prototype.putPart = async function putPart(bucket, uploadId, partNumber, content) {
  const partPath = path.join(
    this.getResourcePath(bucket, undefined, 'uploads'),
    uploadId,
    String(partNumber),
  );
  const { size, md5 } = await writeContent(content, partPath);
  await fs.promises.writeFile(`${partPath}.md5`, md5);
  return { size, md5 };
};
FilesystemStore.prototype.deleteObject = function deleteObject(bucket, key) {
  return locked(async () => {
    const files = ['object', 'object.md5', 'metadata.json'].map((r) => this.getResourcePath(bucket, key, r));
    await Promise.all(files.map((f) => fs.promises.rm(f, { force: true })));
    // Its folders, as long as they are empty (a missing one is gone already).
    const bucketPath = this.getBucketPath(bucket);
    for (let dir = path.dirname(files[0]); dir.startsWith(`${bucketPath}/`); dir = path.dirname(dir)) {
      try {
        await fs.promises.rmdir(dir);
      } catch {
        break;
      }
    }
  });
};
const copyObject = FilesystemStore.prototype.copyObject;
FilesystemStore.prototype.copyObject = function (...args) {
  return locked(() => copyObject.apply(this, args));
};

const [directory, bucket, port = '0'] = process.argv.slice(2);
const server = new S3rver({
  port: Number(port),
  address: '127.0.0.1',
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const address = await server.run();
process.stdout.write(`PORT ${address.port}\n`);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
