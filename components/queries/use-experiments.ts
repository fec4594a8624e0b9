import { useQuery } from "@tanstack/react-query";
import { experimentQueries } from "./keys";

export function useExperiments() {
  return useQuery(experimentQueries.list());
}
