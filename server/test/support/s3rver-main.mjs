// s3rver in its own process (started by s3rver.ts): node --openssl-legacy-provider s3rver-main.mjs
// DIRECTORY BUCKET. Prints "PORT <n>" once listening; stops on SIGTERM or when stdin closes (the
// parent went away). The legacy provider is for s3rver's ListObjectsV2 continuation tokens, which
// it encrypts with DES: without it every listing longer than one page fails with a 500.
import S3rver from 's3rver';

const [directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  port: 0,
  address: '127.0.0.1',
  silent: true,
  directory,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const { port } = await server.run();
process.stdout.write(`PORT ${port}\n`);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
