// Transform library for the equivalence tests: lowers linalg.softmax in the
// *original* IR (fa-cpu-pipeline does not decompose aggregated ops).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose_interface %s : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
