// Serves PGlite (PostgreSQL compiled to WASM) with the real pgvector on
// 127.0.0.1 over the PostgreSQL wire protocol, for loci's conformance suite
// in CI (.ci/run). Usage: node server.mjs [port] (0, the default, picks a
// free port). It prints "pglite listening on 127.0.0.1:PORT" once it
// accepts connections.
//
// Known limits: every connection shares one PostgreSQL session (session
// settings and advisory locks are common to all), an open transaction
// blocks the other connections until it ends, and COPY breaks the protocol.
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const port = parseInt(process.argv[2] ?? '0', 10)
const db = await PGlite.create({ extensions: { vector } })
const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 8 })
server.addEventListener('listening', (e) => {
  console.log(`pglite listening on ${e.detail.host}:${e.detail.port}`)
})
await server.start()

const stop = async () => {
  await server.stop()
  await db.close()
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
