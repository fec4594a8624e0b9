import { useQuery } from "@tanstack/react-query";
import { experimentQueries } from "./keys";

export function useExperiment(experimentId: string) {
  return useQuery(experimentQueries.detail(experimentId));
}
