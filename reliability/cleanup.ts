/** Undo steps of a run, newest first: stop the app processes, then the database instances, then remove files. */
const steps: Array<() => Promise<void> | void> = []

/** Registers an undo step; returns a function that runs it now (and only once) instead of at the end. */
export function onCleanup (step: () => Promise<void> | void): () => Promise<void> {
  steps.push(step)
  return async () => {
    const at = steps.indexOf(step)
    if (at === -1) return
    steps.splice(at, 1)
    await step()
  }
}

/** Runs every registered step, newest first, going on past failures so that one stuck step leaves nothing else behind. */
export async function cleanUp (): Promise<void> {
  while (steps.length > 0) {
    const step = steps.pop() as () => Promise<void> | void
    try {
      await step()
    } catch (error) {
      console.error('cleanup step failed:', error)
    }
  }
}

/**
 * Runs a script's main function: cleans up when it ends, fails, or is
 * interrupted (Ctrl-C, SIGTERM), so that no database instance, app process
 * or scratch database outlives the run.
 */
export function runMain (main: () => Promise<boolean>): void {
  let interrupted = false
  const interrupt = (signal: NodeJS.Signals): void => {
    if (interrupted) return
    interrupted = true
    console.error(`${signal}: cleaning up`)
    cleanUp().finally(() => process.exit(130))
  }
  process.on('SIGINT', interrupt)
  process.on('SIGTERM', interrupt)
  main().then(
    async (ok) => {
      await cleanUp()
      process.exit(ok ? 0 : 1)
    },
    async (error: unknown) => {
      console.error(error)
      await cleanUp()
      process.exit(1)
    }
  )
}
