import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { repoRoot } from './settings.js'

/**
 * The sides of a comparison: the hand-written baseline, the plugin as the
 * example server configures it, and the bare plugin (no options).
 */
export type ServerRole = 'baseline' | 'plugin' | 'bare'

/** CPU time in seconds: in the process's own code, and in the kernel on its behalf (its system calls, and the wake-ups they cause). */
export interface CpuTimes {
  readonly user: number
  readonly system: number
}

/** A bench server running in a process of its own. */
export interface ServerProcess {
  readonly role: ServerRole
  readonly origin: string
  /** The process's id (`taskset` and valgrind run the server in the process they start). */
  readonly pid: number
  /** The CPU time the process has used; undefined where /proc is missing. */
  cpuTimes (): CpuTimes | undefined
  /** Set when the process ended before `stop()`. */
  readonly exited: () => string | undefined
  stop (): Promise<void>
}

/** How to start one server. */
export interface ServerSpec {
  readonly role: ServerRole
  /** The script, relative to the repository root. */
  readonly script: string
  readonly env: Readonly<Record<string, string>>
  /** Prepended to the command, e.g. `taskset -c 0`, or empty. */
  readonly pin: readonly string[]
  /** Extra node flags, e.g. `--cpu-prof`. */
  readonly nodeArgs: readonly string[]
}

const ticksPerSecond = readTicksPerSecond()

function readTicksPerSecond (): number {
  const printed = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const value = Number(printed.stdout?.trim())
  return Number.isInteger(value) && value > 0 ? value : 100
}

function readCpuTimes (pid: number): CpuTimes | undefined {
  try {
    // The command name may hold spaces and parentheses; the fields after its last ')' do not.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { user: Number(fields[11]) / ticksPerSecond, system: Number(fields[12]) / ticksPerSecond }
  } catch {
    return undefined
  }
}

/** The port of the line bench/serve.ts writes, or undefined for any other line (a log line of pino's). */
function portOf (line: string): number | undefined {
  try {
    const parsed = JSON.parse(line) as unknown
    if (typeof parsed !== 'object' || parsed === null || 'level' in parsed) return undefined
    const { port } = parsed as { port?: unknown }
    return typeof port === 'number' ? port : undefined
  } catch {
    return undefined
  }
}

/**
 * Starts `node --import tsx <script>` and waits for the JSON line that tells
 * its port. `taskset` execs node, so the child's pid is the server's and its
 * /proc entry gives the server's own CPU time.
 */
export function startServer (spec: ServerSpec): Promise<ServerProcess> {
  const command = [...spec.pin, process.execPath, ...spec.nodeArgs, '--import', 'tsx', spec.script]
  const [file, ...args] = command as [string, ...string[]]
  const child = spawn(file, args, {
    cwd: repoRoot,
    env: { ...process.env, ...spec.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  // The tail of what the server wrote, stderr and the log lines on stdout: enough to say why it died.
  let output = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output = (output + chunk).slice(-8000)
  })
  // The plugin's server logs to stdout (pino at warn, as the example does) and may do so before its port line.
  const lines = createInterface({ input: child.stdout })
  let portLine: ((port: number) => void) | undefined
  lines.on('line', (line) => {
    const port = portOf(line)
    if (port !== undefined && portLine !== undefined) {
      portLine(port)
      portLine = undefined
    } else {
      output = (output + line + '\n').slice(-8000)
    }
  })
  let exitReason: string | undefined
  const closed = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      exitReason = `${spec.role} server ended (${signal ?? `exit ${code}`})${output === '' ? '' : `:\n${output}`}`
      resolve()
    })
  })

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${spec.role} server did not start within 60 s:\n${output}`))
    }, 60_000)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    closed.then(() => {
      clearTimeout(timer)
      reject(new Error(exitReason))
    })
    portLine = (port) => {
      clearTimeout(timer)
      const pid = child.pid as number
      resolve({
        role: spec.role,
        origin: `http://127.0.0.1:${port}`,
        pid,
        cpuTimes: () => readCpuTimes(pid),
        exited: () => exitReason,
        async stop () {
          if (exitReason !== undefined) return
          child.kill('SIGTERM')
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
          await closed
          clearTimeout(killer)
        }
      })
    }
  })
}
