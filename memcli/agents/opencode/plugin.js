// memcli for OpenCode: written by `memcli hooks install --agent opencode`, removed by
// `memcli hooks uninstall --agent opencode` (memcli's docs/agents.md says what it does and why).
//
// - a session's first prompt carries the project memory (what `memcli context` prints) as a
//   synthetic text part, put before the prompt: OpenCode has no session-start hook, and a part
//   of the first message is what it sends and keeps, as other agents keep their hooks' context;
//   the command that prints it starts when OpenCode loads the plugin (its output depends on the
//   folder alone, not on the session), so the first prompt finds it done, not waits for it;
// - when the plugin loads it also asks OpenCode for its MCP servers' status, which makes OpenCode
//   connect them then: `opencode run` would connect them only at the first prompt, in its way;
// - when a session goes idle, and for every session when OpenCode closes (the plugin's `dispose`),
//   `memcli extract --hook` hands the session to memcli's capture, which returns at once.
// Each command gets the JSON other agents' hooks get on its stdin; none can break OpenCode: a
// missing memcli, an error or a timeout means no context, no capture. (OpenCode 1.18.33: plugins
// load when OpenCode opens a folder, awaited one by one, with `client`, the SDK on its own server.)
import { spawn } from "node:child_process"

const SESSION_START = "__MEMCLI_SESSION_START__"
const CAPTURE = "__MEMCLI_CAPTURE__"
const START_MS = 30000
const CAPTURE_MS = 10000

// The command's stdout if it exits 0 within timeoutMs, else "". An aborted `signal` kills it.
function run(command, payload, timeoutMs, signal) {
  return new Promise((resolve) => {
    const [program, ...args] = command.split(" ")
    let out = ""
    let child
    try {
      child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"], signal })
    } catch {
      resolve("")
      return
    }
    const timer = setTimeout(() => child.kill(), timeoutMs)
    child.on("error", () => {
      clearTimeout(timer)
      resolve("")
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve(code === 0 ? out : "")
    })
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

// A part id that sorts before the prompt's own parts: OpenCode orders a message's parts by id, and
// its ids start with the time in hex; the message's id carries a time before any of its parts'.
function partBefore(messageID) {
  const chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
  let tail = ""
  for (let i = 0; i < 14; i++) tail += chars[Math.floor(Math.random() * chars.length)]
  return "prt_" + messageID.slice(4, 16) + tail
}

export const MemcliPlugin = async ({ directory, client }) => {
  const started = new Set() // sessions whose first prompt in this process carried the context
  const seen = new Set() // sessions to hand to capture when OpenCode closes
  const payload = (sessionID, event) => ({ session_id: sessionID, cwd: directory, hook_event_name: event })
  const capture = (sessionID, event) => run(CAPTURE, payload(sessionID, event), CAPTURE_MS)
  const stop = new AbortController() // kills the early run if OpenCode closes before it is done
  const start = (sessionID) => run(SESSION_START, payload(sessionID, "SessionStart"), START_MS, stop.signal)
  let early = start(undefined) // for the first session's first prompt; a later session runs its own
  try {
    client?.mcp?.status?.()?.catch?.(() => {}) // not awaited: OpenCode is loading its plugins now
  } catch {}
  return {
    "chat.message": async (input, output) => {
      seen.add(input.sessionID)
      if (started.has(input.sessionID)) return
      started.add(input.sessionID)
      const pending = early ?? start(input.sessionID)
      early = undefined
      const context = await pending
      if (!context.trim() || typeof output.message?.id !== "string") return
      output.parts.unshift({
        id: partBefore(output.message.id),
        sessionID: input.sessionID,
        messageID: output.message.id,
        type: "text",
        text: context,
        synthetic: true,
      })
    },
    event: async ({ event }) => {
      if (event.type !== "session.idle") return
      seen.add(event.properties.sessionID)
      await capture(event.properties.sessionID, "session.idle")
    },
    dispose: async () => {
      stop.abort()
      await Promise.all([...seen].map((sessionID) => capture(sessionID, "dispose")))
    },
  }
}
