// What the service reads of the Engine API's swarm objects (the swarm, its nodes, services and
// tasks), and the attributes that the engine writes before each line of a service's log.
import type { StreamName } from "./frames.ts"

export interface ObjectVersion {
  Index: number
}

export interface SwarmInspect {
  ID: string
  Version: ObjectVersion
  CreatedAt: string
  UpdatedAt: string
  Spec: Record<string, unknown>
  /** The secrets that let a node join: only the routes that show them on purpose read these. */
  JoinTokens: { Worker: string; Manager: string }
}

export interface SwarmInitRequest {
  ListenAddr: string
  AdvertiseAddr?: string
  ForceNewCluster?: boolean
}
export interface SwarmJoinRequest {
  ListenAddr: string
  AdvertiseAddr?: string
  RemoteAddrs: string[]
  JoinToken: string
}

export type NodeRole = "manager" | "worker"
export type NodeAvailability = "active" | "pause" | "drain"
export interface NodeSpec {
  Name?: string
  Labels?: Record<string, string>
  Role: NodeRole
  Availability: NodeAvailability
}
export interface SwarmNode {
  ID: string
  Version: ObjectVersion
  CreatedAt: string
  UpdatedAt: string
  Spec: NodeSpec
  Description: {
    Hostname: string
    Platform?: { Architecture: string; OS: string }
    Engine?: { EngineVersion: string; Labels?: Record<string, string> }
  }
  /** `State`: unknown, down, ready or disconnected. */
  Status: { State: string; Message?: string; Addr?: string }
  ManagerStatus?: { Leader?: boolean; Reachability: string; Addr: string }
}

export interface PortConfig {
  Name?: string
  Protocol?: string
  TargetPort: number
  PublishedPort?: number
  PublishMode?: "ingress" | "host"
}
export interface ServiceSpec {
  Name: string
  Labels?: Record<string, string>
  TaskTemplate: {
    ContainerSpec?: { Image: string; TTY?: boolean; [key: string]: unknown }
    ForceUpdate?: number
    [key: string]: unknown
  }
  Mode?: {
    Replicated?: { Replicas?: number }
    Global?: Record<string, never>
    ReplicatedJob?: Record<string, unknown>
    GlobalJob?: Record<string, never>
  }
  EndpointSpec?: { Mode?: "vip" | "dnsrr"; Ports?: PortConfig[] }
  [key: string]: unknown
}
export interface SwarmService {
  ID: string
  Version: ObjectVersion
  CreatedAt: string
  UpdatedAt: string
  Spec: ServiceSpec
  PreviousSpec?: ServiceSpec
  Endpoint?: { Spec?: ServiceSpec["EndpointSpec"]; Ports?: PortConfig[] }
  /** `State`: updating, paused, completed, rollback_started, rollback_paused or rollback_completed. */
  UpdateStatus?: { State?: string; StartedAt?: string; CompletedAt?: string; Message?: string }
  /** Asked for with `status=true`. */
  ServiceStatus?: { RunningTasks: number; DesiredTasks: number; CompletedTasks?: number }
}
export interface ServiceUpdateOptions {
  rollback?: "previous"
}

export interface SwarmTask {
  ID: string
  Version: ObjectVersion
  CreatedAt: string
  UpdatedAt: string
  ServiceID: string
  NodeID?: string
  Slot?: number
  Labels?: Record<string, string>
  /** `State`: new, pending, assigned, accepted, preparing, starting, running, complete, shutdown, failed, rejected, remove, orphaned. */
  Status: {
    Timestamp?: string
    State: string
    Message?: string
    Err?: string
    ContainerStatus?: { ContainerID?: string; PID?: number; ExitCode?: number }
  }
  DesiredState: string
}

/** A line of a service's log: which task wrote it, on which node. */
export interface ServiceLogLine {
  stream: StreamName
  ts: string
  line: string
  task: string
  node: string
}

/**
 * Splits the attributes the engine writes before a service's log line when asked for `details`
 * ("com.docker.swarm.node.id=N,com.docker.swarm.service.id=S,com.docker.swarm.task.id=T line").
 */
export function splitDetails(text: string): { task: string; node: string; line: string } {
  const space = text.indexOf(" ")
  const head = space < 0 ? text : text.slice(0, space)
  const attrs = new URLSearchParams(head.replaceAll(",", "&"))
  const task = attrs.get("com.docker.swarm.task.id")
  if (!task) return { task: "", node: "", line: text }
  return { task, node: attrs.get("com.docker.swarm.node.id") ?? "", line: space < 0 ? "" : text.slice(space + 1) }
}
