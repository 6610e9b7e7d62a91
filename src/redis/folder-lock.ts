import { statSync } from 'node:fs'
import { connect, createServer, type Server } from 'node:net'

/** A data folder claimed by this process. */
export interface FolderLock {
  release (): Promise<void>
}

const HOLDER_TIMEOUT_MS = 1000
const DYING_HOLDER_WAIT_MS = 3000
const RETRY_MS = 25

/**
 * Claims a folder for this process until release() or until the process dies, by any means. The claim
 * is a Linux abstract unix socket named after the folder's device and inode (so a symlink or a bind mount
 * of it is the same folder): only one process can bind a name, and the kernel frees it with the process.
 * A second claim is refused with a sentence naming the holder's PID, which the holder answers with.
 */
export async function claimFolder (dir: string): Promise<FolderLock> {
  const { dev, ino } = statSync(dir, { bigint: true })
  const name = `\0jsondocs-data-folder/${dev}/${ino}`
  const server = createServer((socket) => { socket.on('error', () => {}).end(`${process.pid}\n`) })
  const deadline = Date.now() + DYING_HOLDER_WAIT_MS
  for (;;) {
    try {
      await listen(server, name)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    }
    // A holder killed a moment ago holds the name until the kernel has finished tearing it down, and no
    // longer answers: wait for it. A live holder answers at once.
    const holder = await holderOf(name)
    if (holder !== undefined || Date.now() > deadline) {
      throw new Error(`Another jsondocs${holder ? ` (pid ${holder})` : ''} is using ${dir}: stop it first, or give this one another DATA_DIR`)
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
  }
  server.unref()
  return {
    release: () => new Promise((resolve) => server.close(() => resolve()))
  }
}

function listen (server: Server, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(name, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** The PID the holder of a claim answers with, if it answers in time. */
function holderOf (name: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(name)
    let answer = ''
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(/^\d+$/.exec(answer.trim())?.[0])
    }
    const timer = setTimeout(done, HOLDER_TIMEOUT_MS)
    socket.on('data', (chunk: Buffer) => { answer += chunk.toString() })
    socket.once('error', done)
    socket.once('end', done)
  })
}
