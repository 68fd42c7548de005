import PtxModel.Rel
import PtxModel.Events
import PtxModel.Model
import PtxModel.Relations
import PtxModel.Axioms
import PtxModel.Models
