/** The reports of `run` and the scenario calls, one type per op. */

import type { ExperimentCategory, ExperimentFit } from "./study.js";
import type { NanPolicy } from "./values.js";

/** A contender in a {@link Report}: scores that JSON cannot hold are the strings `"inf"`, `"-inf"`, `"nan"`. */
export interface ReportContender {
  token: number;
  score: number | "inf" | "-inf" | "nan";
  bits: string;
}

/** A race in a {@link Report}. */
export interface ReportRace {
  winner: ReportContender;
  runnerUp: ReportContender | null;
  marginUlps: number | null;
}

/** A recovered token in a `recover` report. */
export interface ReportPosition extends ReportRace {
  /** Request index. */
  request: number;
  /** Position within the request's drafts. */
  position: number;
  /** Flat index into `draftTokenIds`. */
  tokenIndex: number;
  /** The draft token at this position. */
  draftToken: number;
}

/** A request in a `rejection` report. */
export interface ReportRequest {
  greedy: boolean;
  numDraft: number;
  numAccepted: number;
  recovered: ReportRace | null;
  bonus: number | null;
  bonusRace: ReportRace | null;
}

/** A number in a {@link Report}: values JSON cannot hold are the strings `"inf"`, `"-inf"`, `"nan"`. */
export type ReportNumber = number | "inf" | "-inf" | "nan";

/** A catalogue model's documented facts, in a {@link Report}. */
export interface ReportModelFacts {
  name: string;
  /** The engine whose sampling the model replays (and its backend where it matters). */
  engine: string;
  /** The engine's versions the model covers, e.g. `"0.31–0.34"`. */
  versions: string;
  precision: "f32" | "f64";
  kind: "exponential" | "gumbel";
  lattice: string;
  transform: string;
  clamp: string;
  minPositiveE: number;
  maxFiniteGumbel: number;
  pZero: number;
  pInfinite: number;
  /** How far the value may lie from the engine's: 0 but where the model
   * stands in for a value the engine's approximate instruction gives within
   * a measured bound (`flashinfer-0.7`). */
  noiseError: number;
  /** How the engine's argmax breaks ties between equal scores. */
  tieRule: string;
  source: string;
  stream: string;
}

/** A race with its precision, in `compare` and `overflow` reports. */
export interface ReportPrecisionRace extends ReportRace {
  precision: "f32" | "f64";
}

/** The fields every {@link Report} has. */
interface ReportHeader {
  /** Format version (1). */
  exporace: number;
  precision: "f32" | "f64";
  nanPolicy: NanPolicy;
  /** The seed used (given, or drawn from entropy) as a decimal string; `null` when nothing was seeded. */
  seed: string | null;
}

/** `op: "race"`: one race. */
export interface RaceReport extends ReportHeader {
  op: "race";
  result: ReportRace;
}

/** `op: "recover"`: the recovered token of every draft position. */
export interface RecoverReport extends ReportHeader {
  op: "recover";
  result: { positions: ReportPosition[] };
}

/** `op: "rejection"`: the whole rejection step. */
export interface RejectionReport extends ReportHeader {
  op: "rejection";
  result: {
    maxSpecLen: number;
    outputTokenIds: number[][];
    uniform: number[];
    requests: ReportRequest[];
  };
}

/** `op: "models"`: the catalogue. */
export interface ModelsReport extends ReportHeader {
  op: "models";
  result: { models: ReportModelFacts[] };
}

/** `op: "noise"`: a model's draws. */
export interface NoiseReport extends ReportHeader {
  op: "noise";
  result: {
    model: ReportModelFacts;
    draws: {
      token: number;
      /** The lattice integer, as a decimal string. */
      raw: string;
      uniform: number;
      value: ReportNumber;
      bits: string;
      e: ReportNumber;
      invQ: ReportNumber;
      branch: "normal" | "clamped" | "zero" | "infinite";
    }[];
  };
}

/** `op: "compare"`: one stream of noise through two pipelines. */
export interface CompareReport extends ReportHeader {
  op: "compare";
  result: {
    aName: string;
    bName: string;
    a: ReportPrecisionRace;
    b: ReportPrecisionRace;
    flipped: boolean;
    exactWinner: number;
    differing: { token: number; beatsInA: boolean; beatsInB: boolean; logGap: number }[];
  };
}

/** `op: "overflow"`: entries with `q = 0`, infinite or NaN scores, and each NaN policy's pick. */
export interface OverflowReport extends ReportHeader {
  op: "overflow";
  result: {
    entries: {
      token: number;
      weight: number;
      noise: ReportNumber;
      qZero: boolean;
      invQInf: boolean;
      scoreInf: boolean;
      scoreNan: boolean;
    }[];
    picks: { policy: NanPolicy; race: ReportPrecisionRace | null; error: string | null }[];
  };
}

/** `op: "dead_zone"`: tokens a model can never let win. */
export interface DeadZoneReport extends ReportHeader {
  op: "dead_zone";
  result: {
    model: ReportModelFacts;
    eMin: number;
    /** `"inf"` where the model's E can be infinite. */
    eMax: number | "inf";
    threshold: number | "inf";
    count: number;
    mass: number;
    tokens: number[];
  };
}

/** `op: "exact"`: win probabilities computed from the noise law. */
export interface ExactReport extends ReportHeader {
  op: "exact";
  result: {
    model: ReportModelFacts;
    probabilities: {
      model: string;
      groups: { weight: number; count: number; probability: number; lower: number; upper: number }[];
      excluded: number;
      nodes: number;
    };
  };
}

/** `op: "experiment"`: a Monte Carlo run against the exact expectation. */
export interface ExperimentScenarioReport extends ReportHeader {
  op: "experiment";
  result: {
    model: ReportModelFacts;
    report: {
      counts: number[];
      expected: number[];
      fit: ExperimentFit & { categories: Omit<ExperimentCategory, "expectedCount">[] };
      tvToTarget: number;
    };
  };
}

/**
 * The answer to a scenario: the document `exporace run` prints, with its keys
 * in camelCase, one variant per `op` (test `op` to narrow it).
 */
export type Report =
  | RaceReport
  | RecoverReport
  | RejectionReport
  | ModelsReport
  | NoiseReport
  | CompareReport
  | OverflowReport
  | DeadZoneReport
  | ExactReport
  | ExperimentScenarioReport
  | SampleReport;

/** `op: "sample"`: the engine's pick. */
export interface SampleReport extends ReportHeader {
  op: "sample";
  result: { model: string; token: number };
}
