// s3rver in its own process (started by s3rver.ts and bench/s3-stand.mjs): node
// --openssl-legacy-provider s3rver-main.mjs DIRECTORY BUCKET [PORT]. Prints "PORT <n>" once
// listening; stops on SIGTERM or when stdin closes (the parent went away). Without PORT it takes a
// free one; a stand restarting it after a crash passes the port it had. The legacy provider is for s3rver's ListObjectsV2 continuation tokens, which
// it encrypts with DES: without it every listing longer than one page fails with a 500.
import S3rver from 's3rver';

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
