/**
 * Tests share the machine's one PostgreSQL and one Redis: each test file works in its own schema and
 * under its own key prefix, and removes exactly those when it is done.
 */
import { Redis } from 'ioredis';
import pg from 'pg';

export async function dropSchemas(postgresUrl: string, ...schemas: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}

/** Delete every key under `prefix` (KEYS is fine here: a test Redis holds few keys). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}
