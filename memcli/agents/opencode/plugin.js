// memcli for OpenCode: written by `memcli hooks install --agent opencode`, removed by
// `memcli hooks uninstall --agent opencode` (memcli's docs/agents.md says what it does and why).
//
// - a session's first prompt carries the project memory (what `memcli context` prints) as a
//   synthetic text part, put before the prompt: OpenCode has no session-start hook, and a part
//   of the first message is what it sends and keeps, as other agents keep their hooks' context;
// - when a session goes idle, and for every session when OpenCode closes (the plugin's `dispose`),
//   `memcli extract --hook` hands the session to memcli's capture, which returns at once.
// Each command gets the JSON other agents' hooks get on its stdin; none can break OpenCode: a
// missing memcli, an error or a timeout means no context, no capture.
import { spawn } from "node:child_process"

const SESSION_START = "__MEMCLI_SESSION_START__"
const CAPTURE = "__MEMCLI_CAPTURE__"
const START_MS = 30000
const CAPTURE_MS = 10000

function run(command, payload, timeoutMs) {
  return new Promise((resolve) => {
    const [program, ...args] = command.split(" ")
    let out = ""
    let child
    try {
      child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"] })
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

export const MemcliPlugin = async ({ directory }) => {
  const started = new Set() // sessions whose first prompt in this process carried the context
  const seen = new Set() // sessions to hand to capture when OpenCode closes
  const payload = (sessionID, event) => ({ session_id: sessionID, cwd: directory, hook_event_name: event })
  const capture = (sessionID, event) => run(CAPTURE, payload(sessionID, event), CAPTURE_MS)
  return {
    "chat.message": async (input, output) => {
      seen.add(input.sessionID)
      if (started.has(input.sessionID)) return
      started.add(input.sessionID)
      const context = await run(SESSION_START, payload(input.sessionID, "SessionStart"), START_MS)
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
      await Promise.all([...seen].map((sessionID) => capture(sessionID, "dispose")))
    },
  }
}
