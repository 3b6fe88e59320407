// RUN: infer-opt %s -split-input-file -convert-infer-to-linalg | FileCheck %s

// Tests that a float add broadcasts a 1-D operand along the trailing dim of
// a 2-D one: the smaller operand's map drops the leading dim.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast_trailing
// CHECK-SAME: %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>
func.func @add_broadcast_trailing(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
  // CHECK: %[[R:.+]] = linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]]
  // CHECK-SAME: iterator_types = ["parallel", "parallel"]
  // CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
  // CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[SUM:.+]] = arith.addf %[[X]], %[[Y]] : f32
  // CHECK: linalg.yield %[[SUM]] : f32
  // CHECK: return %[[R]]
  %r = infer.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Tests that an integer add uses arith.addi and that a size-1 dim stretched
// to the result reads index 0 (a constant in the map).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @add_int_stretched
func.func @add_int_stretched(%a: tensor<2x3xi32>, %b: tensor<2x1xi32>) -> tensor<2x3xi32> {
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID]], #[[$COL]], #[[$ID]]]
  // CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
  // CHECK: arith.addi %[[X]], %[[Y]] : i32
  // CHECK-NOT: arith.addf
  %r = infer.add %a, %b : tensor<2x3xi32>, tensor<2x1xi32> -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// Tests that Div picks arith.divsi for integers and arith.divf for floats.
// CHECK-LABEL: func.func @div_int_and_float
func.func @div_int_and_float(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<4xi32>, tensor<4xi32>)
  // CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
  // CHECK: arith.divsi %[[X]], %[[Y]] : i32
  %0 = infer.div %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi32>
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32>)
  // CHECK: ^bb0(%[[U:.+]]: f32, %[[V:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.divf %[[U]], %[[V]] : f32
  %1 = infer.div %c, %d : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// -----

// Tests that comparisons pick arith.cmpi (signed predicate) for integers and
// arith.cmpf (ordered predicate) for floats, and produce i1 tensors.
// CHECK-LABEL: func.func @less_int_and_float
func.func @less_int_and_float(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  // CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
  // CHECK: %[[LT:.+]] = arith.cmpi slt, %[[X]], %[[Y]] : i32
  // CHECK: linalg.yield %[[LT]] : i1
  // CHECK: } -> tensor<4xi1>
  %0 = infer.less %a, %b : tensor<4xi32>, tensor<4xi32> -> tensor<4xi1>
  // CHECK: ^bb0(%[[U:.+]]: f32, %[[V:.+]]: f32, %{{.+}}: i1):
  // CHECK: %[[OLT:.+]] = arith.cmpf olt, %[[U]], %[[V]] : f32
  // CHECK: linalg.yield %[[OLT]] : i1
  // CHECK: } -> tensor<4xi1>
  %1 = infer.less %c, %d : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// Tests that Relu is a max with zero: arith.maximumf for floats,
// arith.maxsi for integers.
// CHECK-LABEL: func.func @relu
func.func @relu(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // CHECK-DAG: %[[FZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK-DAG: %[[IZERO:.+]] = arith.constant 0 : i32
  // CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
  // CHECK: arith.maximumf %[[X]], %[[FZERO]] : f32
  %0 = infer.relu %a : tensor<4xf32>
  // CHECK: ^bb0(%[[Y:.+]]: i32, %{{.+}}: i32):
  // CHECK: arith.maxsi %[[Y]], %[[IZERO]] : i32
  %1 = infer.relu %b : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// Tests that Sigmoid becomes 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
func.func @sigmoid(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
  // CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[NEG:.+]] = arith.negf %[[X]] : f32
  // CHECK: %[[EXP:.+]] = math.exp %[[NEG]] : f32
  // CHECK: %[[DEN:.+]] = arith.addf %[[EXP]], %[[ONE]] : f32
  // CHECK: %[[Y:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
  // CHECK: linalg.yield %[[Y]] : f32
  %0 = infer.sigmoid %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that exact Gelu is 0.5 * x * (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu_erf
func.func @gelu_erf(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-DAG: %[[RSQRT2:.+]] = arith.constant 0.707106769 : f32
  // CHECK-DAG: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
  // CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
  // CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[HX:.+]] = arith.mulf %[[X]], %[[HALF]] : f32
  // CHECK: %[[SX:.+]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
  // CHECK: %[[ERF:.+]] = math.erf %[[SX]] : f32
  // CHECK: %[[P1:.+]] = arith.addf %[[ERF]], %[[ONE]] : f32
  // CHECK: %[[Y:.+]] = arith.mulf %[[HX]], %[[P1]] : f32
  // CHECK: linalg.yield %[[Y]] : f32
  // CHECK-NOT: math.tanh
  %0 = infer.gelu %a {tanh_approximation = false} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that tanh-approximated Gelu is
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu_tanh
func.func @gelu_tanh(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-DAG: %[[K:.+]] = arith.constant 0.797884583 : f32
  // CHECK-DAG: %[[C:.+]] = arith.constant 4.471500e-02 : f32
  // CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[X2:.+]] = arith.mulf %[[X]], %[[X]] : f32
  // CHECK: %[[X3:.+]] = arith.mulf %[[X]], %[[X2]] : f32
  // CHECK: %[[CX3:.+]] = arith.mulf %[[X3]], %[[C]] : f32
  // CHECK: %[[POLY:.+]] = arith.addf %[[X]], %[[CX3]] : f32
  // CHECK: %[[ARG:.+]] = arith.mulf %[[POLY]], %[[K]] : f32
  // CHECK: math.tanh %[[ARG]] : f32
  // CHECK-NOT: math.erf
  %0 = infer.gelu %a {tanh_approximation = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that Where is an arith.select over three broadcast operands (a
// rank-0 operand reads through an empty map).
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
func.func @where(%c: tensor<1x4xi1>, %a: tensor<4xf32>, %b: tensor<f32>) -> tensor<1x4xf32> {
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID]], #[[$ROW]], #[[$SCALAR]], #[[$ID]]]
  // CHECK: ^bb0(%[[COND:.+]]: i1, %[[L:.+]]: f32, %[[R:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[SEL:.+]] = arith.select %[[COND]], %[[L]], %[[R]] : f32
  // CHECK: linalg.yield %[[SEL]] : f32
  %r = infer.where %c, %a, %b : tensor<1x4xi1>, tensor<4xf32>, tensor<f32> -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// -----

// Tests that Clip is max-then-min with the rank-0 bounds, float and signed
// integer flavours.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @clip
func.func @clip(%x: tensor<8xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %y: tensor<8xi32>, %ilo: tensor<i32>, %ihi: tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>) {
  // CHECK: linalg.generic
  // CHECK-SAME: indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$SCALAR]], #[[$ID]]]
  // CHECK: ^bb0(%[[V:.+]]: f32, %[[MIN:.+]]: f32, %[[MAX:.+]]: f32, %{{.+}}: f32):
  // CHECK: %[[LB:.+]] = arith.maximumf %[[V]], %[[MIN]] : f32
  // CHECK: arith.minimumf %[[LB]], %[[MAX]] : f32
  %0 = infer.clip %x, %lo, %hi : tensor<8xf32>, tensor<f32>, tensor<f32> -> tensor<8xf32>
  // CHECK: ^bb0(%[[IV:.+]]: i32, %[[IMIN:.+]]: i32, %[[IMAX:.+]]: i32, %{{.+}}: i32):
  // CHECK: %[[ILB:.+]] = arith.maxsi %[[IV]], %[[IMIN]] : i32
  // CHECK: arith.minsi %[[ILB]], %[[IMAX]] : i32
  %1 = infer.clip %y, %ilo, %ihi : tensor<8xi32>, tensor<i32>, tensor<i32> -> tensor<8xi32>
  return %0, %1 : tensor<8xf32>, tensor<8xi32>
}

// -----

// Tests that Cast picks the arith conversion for each pair of element types:
// float to int truncates (fptosi), int to float is signed, bool to float is
// unsigned, and anything to bool compares with zero.
// CHECK-LABEL: func.func @cast
func.func @cast(%f: tensor<4xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>, %s: tensor<4xi32>) -> (tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>) {
  // CHECK-DAG: %[[IZERO:.+]] = arith.constant 0 : i64
  // CHECK-DAG: %[[FZERO:.+]] = arith.constant 0.000000e+00 : f32
  // CHECK: ^bb0(%[[A:.+]]: f32, %{{.+}}: i64):
  // CHECK: arith.fptosi %[[A]] : f32 to i64
  %0 = infer.cast %f {to = i64, saturate = true} : tensor<4xf32> -> tensor<4xi64>
  // CHECK: ^bb0(%[[B:.+]]: i64, %{{.+}}: f32):
  // CHECK: arith.sitofp %[[B]] : i64 to f32
  %1 = infer.cast %i {to = f32, saturate = true} : tensor<4xi64> -> tensor<4xf32>
  // CHECK: ^bb0(%[[C:.+]]: f32, %{{.+}}: i1):
  // CHECK: arith.cmpf une, %[[C]], %[[FZERO]] : f32
  %2 = infer.cast %f {to = i1, saturate = true} : tensor<4xf32> -> tensor<4xi1>
  // CHECK: ^bb0(%[[D:.+]]: i64, %{{.+}}: i1):
  // CHECK: arith.cmpi ne, %[[D]], %[[IZERO]] : i64
  %3 = infer.cast %i {to = i1, saturate = true} : tensor<4xi64> -> tensor<4xi1>
  // CHECK: ^bb0(%[[E:.+]]: i1, %{{.+}}: f32):
  // CHECK: arith.uitofp %[[E]] : i1 to f32
  %4 = infer.cast %b {to = f32, saturate = true} : tensor<4xi1> -> tensor<4xf32>
  // CHECK: ^bb0(%[[G:.+]]: i32, %{{.+}}: i64):
  // CHECK: arith.extsi %[[G]] : i32 to i64
  %5 = infer.cast %s {to = i64, saturate = true} : tensor<4xi32> -> tensor<4xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi64>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>
}
